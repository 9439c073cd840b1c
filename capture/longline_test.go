package capture

import (
	"context"
	"io"
	"runtime"
	"testing"
)

// endless yields n bytes of 'x', then "\nend\n", without holding them;
// once, when only late bytes are left, it calls probe.
type endless struct {
	left, late int64
	probe      func()
}

func (e *endless) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if e.probe != nil && e.left <= e.late {
		e.probe()
		e.probe = nil
	}
	n := min(int64(len(p)), e.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	if e.left == n && n >= 5 {
		copy(p[n-5:n], "\nend\n")
	}
	e.left -= n
	return int(n), nil
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// A console that sends 256 MiB without a newline is cut into lines of
// MaxLine bytes, every byte still reaches the raw log, and the capture's
// memory stays bounded.
func TestLongLinesAreCut(t *testing.T) {
	const total = 256 << 20
	var raw counter
	// What the capture holds is measured late in the line, after a
	// collection: the live heap, which garbage the collector has yet to
	// reclaim on a loaded machine does not inflate.
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := live()
	var held int64
	src := &endless{left: total, late: total / 8, probe: func() { held = live() - before }}
	res, err := Capture(context.Background(), src, Options{Raw: &raw, Out: io.Discard, Idle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if raw.n != total {
		t.Errorf("raw log got %d bytes of %d", raw.n, total)
	}
	if res.Cut != total/MaxLine-1 && res.Cut != total/MaxLine {
		t.Errorf("%d lines cut, want about %d", res.Cut, total/MaxLine)
	}
	if len(res.Lines) != 1 || res.Lines[0].Text() != "end" {
		t.Errorf("%d lines kept, the last %v", len(res.Lines), res.Lines[len(res.Lines)-1].Text())
	}
	// A consumer that lags lets the backlog fill: the raw bytes (their
	// buffer up to twice maxBacklog) and the lines cut from them with
	// their arenas, some 80 MiB on a loaded machine; the line so far is
	// 224 MiB.
	if held > total/2 {
		t.Errorf("the capture held %d MiB after 224 MiB of one line (its backlog is %d MiB)", held>>20, maxBacklog>>20)
	}
}
