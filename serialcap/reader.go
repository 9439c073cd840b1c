package serialcap

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"syscall"
	"time"
)

// DefaultIdle is how long a line without newline may stay silent before it
// is emitted as partial: long enough not to split a line the UART is still
// sending (at 9600 baud a byte takes ~1 ms), short enough to see a prompt.
const DefaultIdle = 200 * time.Millisecond

// Line is one console line, or the part of it received so far.
type Line struct {
	// Start is time.Now() taken right after the read() that returned the
	// line's first byte. It carries the monotonic clock reading.
	Start time.Time
	// End is the same for the read() that returned the last byte so far.
	End time.Time
	// Bytes is the line exactly as received, '\n' (and any '\r') included.
	Bytes []byte
	// Partial is set when no '\n' has arrived yet: the line was flushed
	// because the input went idle, or the input ended.
	Partial bool
	// Shown is how many leading bytes of Bytes an earlier partial emission
	// of the same line already delivered; 0 for a fresh line.
	Shown int
}

// Text is the line for matching: without the '\n' and the '\r's before it.
// ANSI escapes are kept; see StripANSI.
func (l Line) Text() string {
	return string(bytes.TrimRight(bytes.TrimSuffix(l.Bytes, []byte{'\n'}), "\r"))
}

// New is the part of Bytes not delivered by an earlier partial emission.
func (l Line) New() []byte { return l.Bytes[l.Shown:] }

type chunk struct {
	t   time.Time
	b   []byte
	err error
}

// Reader splits a byte stream into timestamped lines. A goroutine blocks in
// src.Read and stamps each chunk as soon as the call returns; Next does the
// splitting, the raw copy and the idle timer, so that neither slows the
// reading down.
type Reader struct {
	// Raw, if set, receives every byte read, unchanged and in order, as soon
	// as Next takes the chunk holding it (before the lines are cut).
	Raw io.Writer

	idle   time.Duration
	chunks chan chunk
	done   chan struct{}
	timer  *time.Timer
	armed  bool

	cur   []byte // pending line
	start time.Time
	last  time.Time
	shown int
	ready []Line
	err   error
}

// NewReader starts reading src. idle is the partial-line delay: 0 means
// DefaultIdle, a negative value disables partial lines.
//
// src should be a blocking *os.File from OpenSerial or OpenUnix. A blocked
// read(2) cannot be interrupted, so after Close the reading goroutine ends
// at its next return from Read (a byte, EOF, hangup); the descriptor must
// stay open until then, which os.File guarantees by deferring the real
// close(2) until the pending Read returns.
func NewReader(src io.Reader, idle time.Duration) *Reader {
	if idle == 0 {
		idle = DefaultIdle
	}
	r := &Reader{
		idle: idle,
		// Deep enough that a slow consumer (a disk write in Raw) never makes
		// the reader wait: a stalled reader lets the kernel buffer fill up
		// and, on a real UART, overflow.
		chunks: make(chan chunk, 4096),
		done:   make(chan struct{}),
		timer:  time.NewTimer(time.Hour),
	}
	r.timer.Stop()
	go r.read(src)
	return r
}

func (r *Reader) read(src io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		t := time.Now() // first thing after read(): this is the stamp
		if errors.Is(err, syscall.EIO) {
			// A pty slave whose master closed, or an unplugged USB
			// adapter, reports EIO: the console has hung up.
			err = io.EOF
		}
		if n == 0 && err == nil {
			continue
		}
		select {
		case r.chunks <- chunk{t: t, b: bytes.Clone(buf[:n]), err: err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Close stops delivering lines. It does not close the source.
func (r *Reader) Close() {
	select {
	case <-r.done:
	default:
		close(r.done)
	}
	r.timer.Stop()
}

// Next returns the next complete line, or a partial one when the input has
// been idle for the idle delay, or when it ended. Once the input ends, Next
// returns its error (io.EOF for end of file or hangup). It returns ctx.Err()
// when ctx is done; the Reader stays usable.
func (r *Reader) Next(ctx context.Context) (Line, error) {
	for {
		if len(r.ready) > 0 {
			l := r.ready[0]
			r.ready = r.ready[1:]
			return l, nil
		}
		if r.err != nil {
			return Line{}, r.err
		}
		var idle <-chan time.Time
		if r.armed {
			idle = r.timer.C
		}
		select {
		case c := <-r.chunks:
			r.take(c)
		case <-idle:
			r.armed = false
			r.flushPartial()
		case <-ctx.Done():
			return Line{}, ctx.Err()
		}
	}
}

func (r *Reader) take(c chunk) {
	if len(c.b) > 0 && r.Raw != nil {
		if _, err := r.Raw.Write(c.b); err != nil {
			r.err = err
			return
		}
	}
	b := c.b
	for len(b) > 0 {
		if len(r.cur) == 0 {
			r.start = c.t
		}
		r.last = c.t
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			r.cur = append(r.cur, b...)
			break
		}
		r.cur = append(r.cur, b[:i+1]...)
		r.ready = append(r.ready, Line{Start: r.start, End: c.t, Bytes: r.cur, Shown: r.shown})
		r.cur, r.shown = nil, 0
		b = b[i+1:]
	}
	if c.err != nil {
		r.flushPartial()
		r.err = c.err
	}
	// The timer runs only while undelivered bytes of a line are pending.
	r.timer.Stop()
	r.armed = false
	if r.err == nil && r.idle > 0 && len(r.cur) > r.shown {
		r.timer.Reset(r.idle)
		r.armed = true
	}
}

func (r *Reader) flushPartial() {
	if len(r.cur) <= r.shown {
		return
	}
	// Clip so that appending to the pending line never writes into the
	// slice handed out here.
	b := slices.Clip(r.cur)
	r.ready = append(r.ready, Line{Start: r.start, End: r.last, Bytes: b, Partial: true, Shown: r.shown})
	r.shown = len(r.cur)
}
