package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
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
	// Cut is set on a line that reached MaxLine bytes without a '\n': it
	// ends there, and the rest of the console line follows as a new line.
	// The raw stream keeps every byte.
	Cut bool
}

// MaxLine bounds a line: a console that sends a gigabyte without a
// newline must not hold it all in memory. Result frames are far shorter.
const MaxLine = 1 << 20

// Text is the line for matching: without the '\n' and the '\r's before it.
// ANSI escapes are kept; see StripANSI.
func (l Line) Text() string {
	return string(bytes.TrimRight(bytes.TrimSuffix(l.Bytes, []byte{'\n'}), "\r"))
}

// New is the part of Bytes not delivered by an earlier partial emission.
func (l Line) New() []byte { return l.Bytes[l.Shown:] }

// Sizes of the reading side. Lines are cut out of arenas of arenaSize
// bytes, so that a line costs no allocation of its own; a read(2) always
// has minRead bytes of room (a UART or pty rarely hands over more than a
// few hundred). maxBacklog bounds what a stalled consumer lets pile up:
// at 115200 baud it is more than twenty minutes of console.
const (
	arenaSize  = 64 << 10
	minRead    = 4096
	maxBacklog = 16 << 20
)

// Reader splits a byte stream into timestamped lines.
//
// One goroutine reads src, stamps each read as soon as it returns and
// cuts the lines right there. It wakes the consumer (Next) only when a
// line is complete or the input ended: once per line rather than once per
// read, so fewer thread wake-ups compete with the reading when the next
// byte arrives. The consumer writes Raw and handles the partial-line
// timer, so that neither slows the reading down.
//
// A file in the runtime's poller (OpenSerial, OpenUnix) is read without
// holding a thread while it waits; see pollSource.
type Reader struct {
	// Raw, if set, receives every byte read, unchanged and in order,
	// written by Next. The bytes of a line reach it no later than Next
	// returns the line; those of an unfinished line wait for its end, the
	// idle delay, the end of the input or a Next ended by its context.
	Raw io.Writer

	idle    time.Duration
	backlog int           // bytes read and not yet taken at which reading pauses
	wake    chan struct{} // buffered (1): complete lines or the end are waiting
	timer   *time.Timer   // the idle delay of a pending line
	sched   string        // what raising the reading threads' priority gave

	mu     sync.Mutex
	cond   *sync.Cond // the reading side waits on it while the backlog is full
	closed bool
	cut    cutter // the reading side's state, shared with the idle flush
	raw    []byte // bytes read that Raw has not received yet
	lines  []Line // complete lines Next has not taken yet
	srcErr error  // how the input ended, once it has
	// timerOn is set while the timer is armed. The reading side arms it
	// when a line is left unfinished and it is off; the consumer, when it
	// fires early for the pending line, arms it again for the rest of the
	// delay. A timer reset on every read would cost the runtime a thread
	// wake-up per read.
	timerOn bool

	// Consumer side only.
	ready    []Line
	head     int // ready[head:] are still to be returned
	spareRaw []byte
	spare    []Line
	err      error
}

// cutter holds the line being received. Its bytes are arena[start:end];
// later bytes are read into arena[end:].
type cutter struct {
	arena      []byte
	start, end int
	first      time.Time // Start of the pending line
	last       time.Time // the read that returned its last byte so far
	shown      int       // bytes already emitted as partial
}

func (c *cutter) pending() bool { return c.end-c.start > c.shown }

// NewReader starts reading src with the reading goroutine's threads at
// their normal priority. idle is the partial-line delay: 0 means
// DefaultIdle, a negative value disables partial lines.
//
// src should be an *os.File from OpenSerial or OpenUnix: a file in the
// runtime's poller, whose bytes are stamped the moment the kernel wakes
// the reader for them. Any other reader is read with plain Read calls and
// its bytes stamped when each returns; that includes a file whose
// descriptor was switched to blocking mode. NewReader clears a read
// deadline set on src.
//
// After Close, the reading goroutine ends at its next return from a read
// (bytes, the end of the input, a hangup) or when src is closed.
func NewReader(src io.Reader, idle time.Duration) *Reader {
	return NewReaderPriority(src, idle, PriorityNormal)
}

// NewReaderPriority is NewReader with the threads that run the reading
// goroutine scheduled as p asks, as far as the process is allowed to (see
// Priority); Sched tells what they got.
func NewReaderPriority(src io.Reader, idle time.Duration, p Priority) *Reader {
	return newReader(src, idle, p, maxBacklog)
}

func newReader(src io.Reader, idle time.Duration, p Priority, backlog int) *Reader {
	if idle == 0 {
		idle = DefaultIdle
	}
	r := &Reader{
		idle:    idle,
		backlog: backlog,
		wake:    make(chan struct{}, 1),
		timer:   time.NewTimer(time.Hour),
	}
	r.timer.Stop()
	r.cond = sync.NewCond(&r.mu)
	r.cut.arena = make([]byte, 0, arenaSize)
	started := make(chan struct{})
	go r.read(sourceOf(src), p, started)
	<-started
	return r
}

// Sched describes the scheduling the reading goroutine's threads obtained
// beyond the process's own: "nice -10", or "" for none.
func (r *Reader) Sched() string { return r.sched }

func (r *Reader) read(src source, p Priority, started chan<- struct{}) {
	prio := newCarriers(p)
	defer prio.release()
	r.sched = prio.sched
	close(started)
	for {
		buf, ok := r.room()
		if !ok {
			return
		}
		n, t, err := src.read(buf)
		prio.carry()
		if errors.Is(err, syscall.EIO) {
			// A pty slave whose master closed, or an unplugged USB
			// adapter, reports EIO: the console has hung up.
			err = io.EOF
		}
		if n == 0 && err == nil {
			continue
		}
		complete, arm, ok := r.take(t, n, err)
		if complete {
			r.notify()
		}
		if !ok {
			r.timer.Stop()
			return
		}
		if arm {
			r.timer.Reset(r.idle)
		}
	}
}

// notify wakes the consumer.
func (r *Reader) notify() {
	select {
	case r.wake <- struct{}{}:
	default: // a wake-up is already waiting
	}
}

// room returns where the next read goes: the free end of the arena, after
// waiting while the consumer is too far behind. It is false once the
// Reader is closed.
func (r *Reader) room() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.raw) >= r.backlog && !r.closed {
		// Waking the consumer drains the backlog even when no line
		// ended (a long line, partial lines disabled).
		r.notify()
		r.cond.Wait()
	}
	if r.closed {
		return nil, false
	}
	c := &r.cut
	if cap(c.arena)-c.end < minRead {
		// A new arena; the pending line moves along. Lines already cut
		// keep the old one alive, and nothing writes into it any more.
		n := c.end - c.start
		a := make([]byte, n, max(arenaSize, 2*n+minRead))
		copy(a, c.arena[c.start:c.end])
		c.arena, c.start, c.end = a, 0, n
	}
	return c.arena[c.end:cap(c.arena)], true
}

// take cuts the n bytes just read at the end of the arena into lines. It
// reports whether the consumer has something to take (a complete line or
// the end of the input), whether the idle timer must be armed, and false
// in ok once reading must stop.
func (r *Reader) take(t time.Time, n int, err error) (complete, arm, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &r.cut
	b := c.arena[c.end : c.end+n]
	r.raw = append(r.raw, b...)
	for len(b) > 0 {
		if c.end == c.start {
			c.first = t
		}
		c.last = t
		i := bytes.IndexByte(b, '\n')
		n, cut := i+1, false
		if i < 0 {
			n = len(b)
		}
		if room := MaxLine - (c.end - c.start); n > room {
			n, cut = room, true
		} else if i < 0 {
			c.end += len(b)
			break
		}
		c.end += n
		// Capacity clipped: appending to a line never writes into the arena.
		r.lines = append(r.lines, Line{Start: c.first, End: t, Bytes: c.arena[c.start:c.end:c.end], Shown: c.shown, Cut: cut})
		c.start, c.shown = c.end, 0
		b = b[n:]
		complete = true
	}
	if err != nil {
		r.partial()
		r.srcErr = err
		return true, false, false
	}
	if c.pending() && r.idle > 0 && !r.timerOn {
		r.timerOn, arm = true, true
	}
	return complete, arm, !r.closed
}

// partial queues the undelivered part of the pending line as a partial
// emission. r.mu must be held.
func (r *Reader) partial() {
	c := &r.cut
	if !c.pending() {
		return
	}
	r.lines = append(r.lines, Line{Start: c.first, End: c.last, Bytes: c.arena[c.start:c.end:c.end], Partial: true, Shown: c.shown})
	c.shown = c.end - c.start
}

// Close stops delivering lines. It does not close the source.
func (r *Reader) Close() {
	r.mu.Lock()
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	r.timer.Stop()
}

// Next returns the next complete line, or a partial one when the input has
// been idle for the idle delay, or when it ended. Once the input ends, Next
// returns its error (io.EOF for end of file or hangup). It returns ctx.Err()
// when ctx is done, after handing Raw every byte read so far; the Reader
// stays usable.
func (r *Reader) Next(ctx context.Context) (Line, error) {
	for {
		if r.head < len(r.ready) {
			l := r.ready[r.head]
			r.ready[r.head] = Line{}
			r.head++
			return l, nil
		}
		r.ready, r.head = r.ready[:0], 0
		if r.err != nil {
			return Line{}, r.err
		}
		var idle <-chan time.Time
		if r.idle > 0 {
			idle = r.timer.C
		}
		select {
		case <-r.wake:
			r.drain(false)
		case <-idle:
			r.drain(true)
		case <-ctx.Done():
			r.drain(false)
			return Line{}, ctx.Err()
		}
	}
}

// drain takes what the reading side has cut, hands the raw bytes to Raw
// and queues the lines. With expired (the idle timer fired), a pending
// line that has stayed silent for the idle delay is queued as partial; one
// that has not gets the timer again for the rest of the delay.
func (r *Reader) drain(expired bool) {
	var rearm time.Duration
	r.mu.Lock()
	if expired {
		r.timerOn = false
		if r.cut.pending() {
			if quiet := time.Since(r.cut.last); quiet >= r.idle {
				r.partial()
			} else {
				r.timerOn, rearm = true, r.idle-quiet
			}
		}
	}
	raw, lines, srcErr := r.raw, r.lines, r.srcErr
	r.raw, r.lines = r.spareRaw[:0], r.spare[:0]
	r.cond.Signal()
	r.mu.Unlock()
	if rearm > 0 {
		r.timer.Reset(rearm)
	}

	var err error
	if len(raw) > 0 && r.Raw != nil {
		_, err = r.Raw.Write(raw)
	}
	if err == nil {
		r.ready = append(r.ready, lines...)
		err = srcErr
	}
	clear(lines) // the spare must not keep arenas alive
	r.spareRaw, r.spare = raw, lines
	if err != nil {
		r.err = err
	}
}
