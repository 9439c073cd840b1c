package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// bootLog is the console excerpt to play, kept byte for byte.
type bootLog struct {
	data  []byte
	lines []logLine
}

// logLine is one line of the log. Its kernel time is the printk stamp it
// carries, or the previous line's when it has none (userspace output), so
// that such lines follow their predecessor without a pause.
type logLine struct {
	off, end int     // byte range in data, the '\n' included
	kernel   float64 // seconds
	text     string  // for matching and for checking a tool's output: no '\r', no '\n'
}

// printk finds a kernel timestamp anywhere in a line: the banner line
// starts with the BIOS's "Booting from ROM..".
var printk = regexp.MustCompile(`\[ *(\d+\.\d{6})\] `)

func readBootLog(path string) (*bootLog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	l := &bootLog{data: data}
	kernel := 0.0
	for off := 0; off < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		raw := data[off:end]
		if m := printk.FindSubmatch(raw); m != nil {
			kernel, _ = strconv.ParseFloat(string(m[1]), 64)
		}
		text := strings.ReplaceAll(strings.TrimSuffix(string(raw), "\n"), "\r", "")
		l.lines = append(l.lines, logLine{off: off, end: end, kernel: kernel, text: text})
		off = end
	}
	return l, nil
}

// find returns the index of the first line matching re.
func (l *bootLog) find(re *regexp.Regexp) (int, error) {
	for i, ln := range l.lines {
		if re.MatchString(ln.text) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no line of the log matches %q", re)
}

// chunk is one write(2) into the pty master: bytes data[off:end] at time at
// after the start of the playback.
type chunk struct {
	at       time.Duration
	off, end int
}

// schedule cuts the log into UART-like writes. Bytes go out back to back at
// the line rate (10 bits per byte: 8N1), fifo at a time like a 16550's
// FIFO, each chunk at the time its first byte would start on the wire. A
// line is held back until scale times its kernel time since the first
// line, so that the pauses of the real boot (module loading, the root
// mount) are replayed; scale 0 plays the log back to back.
func schedule(l *bootLog, baud, fifo int, scale float64) []chunk {
	perByte := time.Duration(10 * float64(time.Second) / float64(baud))
	var out []chunk
	var wire time.Duration // when the wire is free again
	burstAt, burstOff := time.Duration(0), 0
	flush := func(end int) {
		for off := burstOff; off < end; off += fifo {
			out = append(out, chunk{at: burstAt + time.Duration(off-burstOff)*perByte, off: off, end: min(off+fifo, end)})
		}
	}
	k0 := l.lines[0].kernel
	for _, ln := range l.lines {
		due := time.Duration(scale * (ln.kernel - k0) * float64(time.Second))
		if due > wire {
			// Silence on the line: the current burst ends here.
			flush(ln.off)
			burstAt, burstOff, wire = due, ln.off, due
		}
		wire += time.Duration(ln.end-ln.off) * perByte
	}
	flush(len(l.data))
	return out
}

// lineChunks maps every line to the chunk that carries its first byte.
func lineChunks(l *bootLog, chunks []chunk) []int {
	idx := make([]int, len(l.lines))
	c := 0
	for i, ln := range l.lines {
		for chunks[c].end <= ln.off {
			c++
		}
		idx[i] = c
	}
	return idx
}
