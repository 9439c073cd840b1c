//go:build linux

package capture

import (
	"os"
	"testing"
	"time"
)

// openPTY opens a real pty pair (OpenPTY). The slave is opened with
// OpenSerial, so it is in raw mode exactly like a serial port: without
// that, the slave's line discipline would turn '\r' into '\n' (ICRNL), hold
// back everything up to a newline (ICANON, so no prompt) and echo input
// back to the master. ONLCR ("\n" -> "\r\n") only concerns the other
// direction, slave output, which the tests do not use.
func openPTY(t *testing.T, cfg Config) (master, slave *os.File) {
	t.Helper()
	master, path, err := OpenPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	slave, err = OpenSerial(path, cfg)
	if err != nil {
		master.Close()
		t.Fatalf("OpenSerial: %v", err)
	}
	// Closing the master first hangs up the slave, which ends a Read still
	// blocked in the capture's reading goroutine.
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

// piece is one write() of a script, at a time relative to the script start.
type piece struct {
	at time.Duration
	b  []byte
}

// sent is when a piece was handed to write(): time.Now() just before the
// call, so a correct capture stamp can only be later.
type sent struct {
	t   time.Time
	off int // offset of the piece's first byte in the whole stream
}

// bytesPerMs is 115200 baud with 8N1 framing (10 bits per byte).
const bytesPerMs = 11.52

// script builds paced writes. Text is cut into 16-byte pieces (a UART FIFO)
// spaced by their transmission time at 115200 baud; pause inserts silence.
type script struct {
	now    time.Duration
	pieces []piece
}

func (s *script) uart(text string) {
	for len(text) > 0 {
		n := min(16, len(text))
		s.raw(text[:n])
		text = text[n:]
	}
}

// raw writes text as one piece, for splits the test wants at a given place.
func (s *script) raw(text string) {
	s.pieces = append(s.pieces, piece{at: s.now, b: []byte(text)})
	s.now += time.Duration(float64(len(text)) / bytesPerMs * float64(time.Millisecond))
}

func (s *script) pause(d time.Duration) { s.now += d }

func (s *script) bytes() []byte {
	var b []byte
	for _, p := range s.pieces {
		b = append(b, p.b...)
	}
	return b
}

// play writes the pieces on schedule and returns their send times on the
// channel once done (or the write error).
func (s *script) play(w *os.File) <-chan []sent {
	ch := make(chan []sent, 1)
	go func() {
		var out []sent
		off := 0
		t0 := time.Now()
		for _, p := range s.pieces {
			time.Sleep(time.Until(t0.Add(p.at)))
			t := time.Now()
			if _, err := w.Write(p.b); err != nil {
				ch <- nil
				return
			}
			out = append(out, sent{t: t, off: off})
			off += len(p.b)
		}
		ch <- out
	}()
	return ch
}

// sendTime is the send time of the piece holding byte off.
func sendTime(ss []sent, off int) time.Time {
	var t time.Time
	for _, s := range ss {
		if s.off > off {
			break
		}
		t = s.t
	}
	return t
}
