package workload

import (
	"bytes"
	"testing"
)

// The cached content is the pattern's stream, at any offset, within the
// cache's bound and beyond it.
func TestExpectedContentIsTheStream(t *testing.T) {
	p := Pattern{"cache"}
	want := make([]byte, 300000)
	p.Stream("f").Read(want)
	c := p.Expected("f")
	for _, r := range []struct{ off, n int }{{0, 100}, {50, 4096}, {100000, 200000}, {0, 300000}, {299999, 1}} {
		if got := c.At(int64(r.off), r.n); !bytes.Equal(got, want[r.off:r.off+r.n]) {
			t.Errorf("at(%d, %d) differs from the stream", r.off, r.n)
		}
	}
	defer func(m int) { MaxExpected = m }(MaxExpected)
	MaxExpected = 0
	g := p.Expected("g")
	want = make([]byte, 2<<20)
	p.Stream("g").Read(want)
	if got := g.At(1<<20+7, 4096); !bytes.Equal(got, want[1<<20+7:1<<20+7+4096]) || len(g.buf) != 0 {
		t.Errorf("beyond the bound: the content differs, or %d bytes were kept", len(g.buf))
	}
}
