//go:build linux

package capture

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/wire/resultframe"
)

var update = flag.Bool("update", false, "rewrite testdata/chunking.golden")

// chunkingStream is the benchmark's boot console (four result frames
// included) followed by the bytes a console makes awkward: CR redraws, a
// NUL, colour and title escapes, UTF-8, a line longer than an arena and a
// prompt without newline.
func chunkingStream(t *testing.T) []byte {
	t.Helper()
	boot, err := os.ReadFile("../bench/boot.log")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(boot)
	b.WriteString("fsck: 10%\rfsck: 55%\rfsck: 100%\r\n\x00Starting syslogd: \x1b[1;32mOK\x1b[0m\r\n")
	b.WriteString("Welcome to caf\xc3\xa9 Buildroot \xe2\x9c\x93\r\n")
	b.WriteString(strings.Repeat("y", arenaSize+4000) + "\r\n")
	b.WriteString("VFS: Mounted root again, for the reset\n")
	b.WriteString("\x1b]0;root@fsbench\x07\x1b[1;34m~\x1b[0m # ")
	return b.Bytes()
}

// readSpan is one Read of a timedSource: the offset of its first byte, the
// time just before it returned and the time the next Read began. The
// reading side stamps the read in between.
type readSpan struct {
	off            int
	returned, next time.Time
}

// timedSource hands out data in reads whose sizes size chooses, as a
// serial port would at some FIFO depth, and records when each read
// returned.
type timedSource struct {
	data  []byte
	off   int
	size  func() int
	reads []readSpan
}

func (s *timedSource) Read(p []byte) (int, error) {
	now := time.Now()
	if k := len(s.reads); k > 0 {
		s.reads[k-1].next = now
	}
	if s.off == len(s.data) {
		return 0, io.EOF
	}
	n := min(len(p), len(s.data)-s.off, s.size())
	copy(p, s.data[s.off:s.off+n])
	s.reads = append(s.reads, readSpan{off: s.off})
	s.off += n
	s.reads[len(s.reads)-1].returned = time.Now()
	return n, nil
}

// readOf is the read that returned the byte at off.
func (s *timedSource) readOf(off int) readSpan {
	i := len(s.reads) - 1
	for s.reads[i].off > off {
		i--
	}
	return s.reads[i]
}

// decodingWriter feeds every Write to a result-frame decoder, as
// `fsbench capture -results` does with the raw stream, and keeps the bytes.
type decodingWriter struct {
	raw    bytes.Buffer
	dec    *resultframe.Decoder
	events []resultframe.Event
}

func (w *decodingWriter) Write(p []byte) (int, error) {
	w.raw.Write(p)
	w.events = append(w.events, w.dec.Feed(p)...)
	return len(p), nil
}

// stampField is the "[abs delta] " prefix of Capture's output.
var stampField = regexp.MustCompile(`\[ *-?\d+\.\d{6} +-?\d+\.\d{6}\] `)

// TestChunkingKeepsEverything feeds one stream in reads of 1 byte (a UART
// without FIFO), 16 bytes (a FIFO), 4096 bytes and random sizes, and
// checks that the raw log, the lines, the printed output (stamps masked),
// the milestones and the decoded result frames are the same for every
// chunking and equal to testdata/chunking.golden, written by the capture
// code before the reading side was reworked. Every line's stamp must fall
// in the read that returned its first byte.
func TestChunkingKeepsEverything(t *testing.T) {
	data := chunkingStream(t)
	rng := rand.New(rand.NewPCG(1, 2))
	chunkings := []struct {
		name string
		size func() int
	}{
		{"1-byte", func() int { return 1 }},
		{"16-byte", func() int { return 16 }},
		{"4096-byte", func() int { return 4096 }},
		{"random", func() int { return 1 + rng.IntN(700) }},
	}
	var first string
	for _, c := range chunkings {
		t.Run(c.name, func(t *testing.T) {
			got := chunkingOnce(t, data, c.size)
			if first == "" {
				first = got
				compareGolden(t, got)
			} else if got != first {
				t.Errorf("%s chunking differs from %s:\n%s", c.name, chunkings[0].name, firstDiff(got, first))
			}
		})
	}
}

func chunkingOnce(t *testing.T, data []byte, size func() int) string {
	src := &timedSource{data: data, size: size}
	raw := &decodingWriter{dec: resultframe.NewDecoder()}
	var out bytes.Buffer
	res, err := Capture(context.Background(), src, Options{
		Idle: -1, Reset: regexp.MustCompile(`VFS: Mounted root`), Out: &out, Raw: raw, KeepLines: true,
	})
	if err != nil || res.Stop != StopEOF {
		t.Fatalf("Capture: %v, stop %v", err, res.Stop)
	}
	raw.events = append(raw.events, raw.dec.Close()...)
	if !bytes.Equal(raw.raw.Bytes(), data) {
		t.Fatalf("raw log: %d bytes, want the %d of the stream", raw.raw.Len(), len(data))
	}
	checkStamps(t, src, res)

	var b strings.Builder
	fmt.Fprintf(&b, "== raw: %d bytes, sha256 %x\n", raw.raw.Len(), sha256.Sum256(raw.raw.Bytes()))
	fmt.Fprintf(&b, "== lines: %d, %d cut\n", len(res.Lines), res.Cut)
	for i, l := range res.Lines {
		fmt.Fprintf(&b, "%d len=%d partial=%v shown=%d cut=%v %.70q\n", i, len(l.Bytes), l.Partial, l.Shown, l.Cut, l.Bytes)
	}
	fmt.Fprintf(&b, "== milestones\n")
	for _, h := range res.Milestones {
		fmt.Fprintf(&b, "%s: %q\n", h.Name, h.Line)
	}
	fmt.Fprintf(&b, "== decoded frames\n")
	for _, ev := range raw.events {
		switch {
		case ev.Result != nil:
			j, _ := json.Marshal(ev.Result)
			fmt.Fprintf(&b, "result %s\n", j)
		case ev.Problem != nil:
			fmt.Fprintf(&b, "problem %s: %s\n", ev.Problem.Code, ev.Problem.Message)
		}
	}
	masked := stampField.ReplaceAllString(out.String(), "[T] ")
	fmt.Fprintf(&b, "== output: %d bytes, sha256 %x, stamps masked; its lines, quoted, up to 100 bytes:\n", len(masked), sha256.Sum256([]byte(masked)))
	for _, l := range strings.SplitAfter(masked, "\n") {
		if len(l) <= 100 {
			fmt.Fprintf(&b, "%q\n", l)
		}
	}
	return b.String()
}

// checkStamps checks that each line starts at the stamp of the read that
// returned its first byte and ends at that of the read with its last, that
// the printed times derive from them, and that a milestone carries its
// line's start.
func checkStamps(t *testing.T, src *timedSource, res *Result) {
	t.Helper()
	off := 0
	var prev time.Time
	for i, l := range res.Lines {
		first, last := src.readOf(off), src.readOf(off+len(l.Bytes)-1)
		if l.Start.Before(first.returned) || l.Start.After(first.next) {
			t.Fatalf("line %d starts at %v, outside the read of its first byte [%v, %v]", i, l.Start, first.returned, first.next)
		}
		if l.End.Before(last.returned) || l.End.After(last.next) {
			t.Fatalf("line %d ends at %v, outside the read of its last byte [%v, %v]", i, l.End, last.returned, last.next)
		}
		if i > 0 && l.Delta != l.Start.Sub(prev) {
			t.Fatalf("line %d: delta %v, want %v", i, l.Delta, l.Start.Sub(prev))
		}
		prev = l.Start
		off += len(l.Bytes)
	}
	for _, h := range res.Milestones {
		found := false
		for _, l := range res.Lines {
			if l.Start.Equal(h.Time) && StripANSI(MatchText(l.Line)) == h.Line {
				found = true
			}
		}
		if !found {
			t.Errorf("milestone %s at %v is no line's start", h.Name, h.Time)
		}
	}
}

func compareGolden(t *testing.T, got string) {
	t.Helper()
	const path = "testdata/chunking.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("differs from %s (go test -update rewrites it):\n%s", path, firstDiff(got, string(want)))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %.200s\nwant %.200s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
