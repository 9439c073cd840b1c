package capture

import (
	"context"
	"io"
	"runtime"
	"testing"
)

// endless yields n bytes of 'x', then "\nend\n", without holding them.
type endless struct{ left int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
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
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Capture(context.Background(), &endless{left: total}, Options{Raw: &raw, Out: io.Discard, Idle: -1})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if raw.n != total {
		t.Errorf("raw log got %d bytes of %d", raw.n, total)
	}
	if res.Cut != total/MaxLine-1 && res.Cut != total/MaxLine {
		t.Errorf("%d lines cut, want about %d", res.Cut, total/MaxLine)
	}
	if len(res.Lines) != 1 || res.Lines[0].Text() != "end" {
		t.Errorf("%d lines kept, the last %v", len(res.Lines), res.Lines[len(res.Lines)-1].Text())
	}
	if grown := int64(after.HeapSys) - int64(before.HeapSys); grown > 128<<20 {
		t.Errorf("the heap grew by %d MiB for a 256 MiB line", grown>>20)
	}
}
