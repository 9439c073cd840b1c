package resultframe

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkMutation decodes a mutated stream and fails if any result other
// than want is accepted, or if nothing is accepted and nothing reported.
// It returns whether want was accepted.
func checkMutation(t *testing.T, what, input string, want Result) bool {
	t.Helper()
	got, problems, _ := split(decodeAll(NewDecoder(), input))
	for _, r := range got {
		if !equal(r, want) {
			t.Fatalf("%s: accepted a wrong result\n got %+v\nwant %+v\ninput %q", what, r, want, input)
		}
	}
	if len(got) == 0 && len(problems) == 0 {
		t.Fatalf("%s: frame silently lost: %q", what, input)
	}
	return len(got) > 0
}

// Every single-byte flip, deletion and insertion in every line of a frame
// is either reported, or (for an insertion just outside the frame) harmless.
func TestEverySingleByteCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, big := range []bool{false, true} {
		r := sample(rng, 1, big)
		if big {
			r.Metrics = r.Metrics[:12] // three or four chunks: enough to cover every chunk role
		}
		want := normalize(r)
		lines := mustEncode(t, r)
		if big && len(lines) < 3 {
			t.Fatalf("big sample has %d chunks", len(lines))
		}
		for li := range lines {
			for pos := 0; pos <= len(lines[li]); pos++ {
				mutate := func(what, line string) bool {
					m := append([]string(nil), lines...)
					m[li] = line
					return checkMutation(t, fmt.Sprintf("line %d/%d %s at %d", li+1, len(lines), what, pos), join(m), want)
				}
				l := lines[li]
				if pos < len(l) {
					for _, x := range []byte{0x01, 0x20, 0x80, 0xff} {
						b := []byte(l)
						b[pos] ^= x
						if mutate(fmt.Sprintf("flip %#x", x), string(b)) {
							t.Fatalf("flip %#x at %d of line %d accepted", x, pos, li+1)
						}
					}
					if mutate("delete", l[:pos]+l[pos+1:]) {
						t.Fatalf("deletion at %d of line %d accepted", pos, li+1)
					}
				}
				for _, c := range []byte{'A', '0', 'f', ' ', '@', '/', '-', '\r', '\n', 0x1b, 0x00} {
					accepted := mutate(fmt.Sprintf("insert %q", c), l[:pos]+string(c)+l[pos:])
					// Only insertions outside the frame may leave it intact:
					// before the start marker, after the end marker, or an
					// extra '@' that becomes text next to a marker.
					outside := pos == 0 || pos == len(l) || c == '@' && (pos <= 2 || pos >= len(l)-2) ||
						c == '\n' && (pos == 0 || pos == len(l))
					if accepted && !outside {
						t.Fatalf("insertion of %q at %d of line %d accepted", c, pos, li+1)
					}
				}
			}
		}
	}
}

// A kernel message or an escape sequence printed into the middle of a frame
// is reported; the text around a frame is not.
func TestInsertedTextFailsChecksum(t *testing.T) {
	r := Result{RunID: "r", Seq: 1, Status: StatusOK, Metrics: []Metric{{Name: "bw", Value: 42, Unit: "MiB/s"}}}
	l := mustEncode(t, r)[0]
	for _, ins := range []string{"[   3.141] random: crng init done", "\x1b[0m", "\r", "  "} {
		mid := len(l) / 2
		got, problems, _ := split(decodeAll(NewDecoder(), l[:mid]+ins+l[mid:]+"\n"))
		if len(got) != 0 || len(problems) == 0 {
			t.Fatalf("insert %q: results %v problems %v", ins, got, problems)
		}
		if problems[0].Code != CodeChecksum && problems[0].Code != CodeTruncated && problems[0].Code != CodeMalformed {
			t.Fatalf("insert %q: %v", ins, problems[0])
		}
	}
}
