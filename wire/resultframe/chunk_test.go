package resultframe

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func bigFrame(t *testing.T, seq uint64) (Result, []string) {
	rng := rand.New(rand.NewPCG(7, seq))
	r := sample(rng, seq, true)
	r.RunID = "run-chunks"
	lines := mustEncode(t, r)
	if len(lines) < 4 {
		t.Fatalf("only %d chunks", len(lines))
	}
	return normalize(r), lines
}

func expectRejected(t *testing.T, what string, lines []string, code Code) {
	t.Helper()
	got, problems, _ := split(decodeAll(NewDecoder(), join(lines)))
	if len(got) != 0 {
		t.Fatalf("%s: accepted %d results", what, len(got))
	}
	for _, p := range problems {
		if p.Code == code {
			return
		}
	}
	t.Fatalf("%s: no %s problem in %v", what, code, problems)
}

func TestChunkLoss(t *testing.T) {
	_, lines := bigFrame(t, 1)
	for i := range lines {
		lost := append(append([]string(nil), lines[:i]...), lines[i+1:]...)
		expectRejected(t, "lost chunk", lost, CodeTruncated)
	}
	// Lost at the end of the stream: reported by Close.
	expectRejected(t, "last chunk lost", lines[:len(lines)-1], CodeTruncated)
}

func TestChunkReorder(t *testing.T) {
	_, lines := bigFrame(t, 1)
	for i := 0; i < len(lines); i++ {
		for j := i + 1; j < len(lines); j++ {
			m := append([]string(nil), lines...)
			m[i], m[j] = m[j], m[i]
			expectRejected(t, "swapped chunks", m, CodeTruncated)
		}
	}
	rev := append([]string(nil), lines...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	expectRejected(t, "reversed", rev, CodeTruncated)
}

// A repeated chunk cannot produce a wrong result: it is reported, and the
// frame still decodes, because its copy is identical.
func TestChunkDuplication(t *testing.T) {
	want, lines := bigFrame(t, 1)
	for i := range lines {
		m := append(append(append([]string(nil), lines[:i+1]...), lines[i]), lines[i+1:]...)
		got, problems, _ := split(decodeAll(NewDecoder(), join(m)))
		if len(got) != 1 || !equal(got[0], want) {
			t.Fatalf("duplicate chunk %d: results %v", i+1, got)
		}
		if len(problems) != 1 || (problems[0].Code != CodeDuplicate && problems[0].Code != CodeTruncated) {
			t.Fatalf("duplicate chunk %d: problems %v", i+1, problems)
		}
	}
}

// Chunks of two frames mixed: the payload id differs, so neither is accepted
// with the other's data.
func TestChunksOfOtherFrame(t *testing.T) {
	_, a := bigFrame(t, 1)
	_, b := bigFrame(t, 2)
	m := append(append([]string(nil), a[:2]...), b[2:]...)
	expectRejected(t, "mixed", m, CodeTruncated)
	// A restart (the runner re-sends after a reboot) keeps the second copy.
	want, _ := bigFrame(t, 1)
	got, problems, _ := split(decodeAll(NewDecoder(), join(append(append([]string(nil), a[:2]...), a...))))
	if len(got) != 1 || !equal(got[0], want) || len(problems) != 1 || problems[0].Code != CodeTruncated {
		t.Fatalf("restart: %v %v", got, problems)
	}
}

// Kernel messages and prompts between chunks do not disturb reassembly, and
// pass through unchanged.
func TestKernelLinesBetweenChunks(t *testing.T) {
	want, lines := bigFrame(t, 1)
	kernel := []string{
		"[   42.000001] EXT4-fs (mmcblk1p3): mounted filesystem with ordered data mode.\r\n",
		"[   42.100000] random: crng init done\n",
		"\x1b[1;31mred\x1b[0m\r\n",
		"\r\n",
		"[   42.2] debug @@ not a frame @@ \n", // looks a bit like markers
	}
	var in, text strings.Builder
	for i, l := range lines {
		in.WriteString(l + "\r\n")
		k := kernel[i%len(kernel)]
		in.WriteString(k)
		text.WriteString(k)
	}
	got, problems, gotText := split(decodeAll(NewDecoder(), in.String()))
	if len(problems) != 0 || len(got) != 1 || !equal(got[0], want) {
		t.Fatalf("results %v problems %v", got, problems)
	}
	if gotText != text.String() {
		t.Fatalf("text %q, want %q", gotText, text.String())
	}
}

// Frames printed in the middle of a line: the text around them is console
// text, the frame is decoded.
func TestFramesMidLine(t *testing.T) {
	r1 := Result{RunID: "r", Seq: 1, Status: StatusOK}
	r2 := Result{RunID: "r", Seq: 2, Status: StatusSkipped}
	f1, f2 := mustEncode(t, r1)[0], mustEncode(t, r2)[0]
	in := "\x1b[0mgarbage @@ " + f1 + "[ 1.0] kernel" + f2 + "@ tail\r\n"
	got, problems, text := split(decodeAll(NewDecoder(), in))
	if len(problems) != 0 || len(got) != 2 || !equal(got[0], normalize(r1)) || !equal(got[1], normalize(r2)) {
		t.Fatalf("results %v problems %v", got, problems)
	}
	if want := "\x1b[0mgarbage @@ [ 1.0] kernel@ tail\r\n"; text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
	// A frame cut by the end of the line (console line limit, reset).
	expectRejected(t, "cut", []string{f1[:len(f1)/2]}, CodeTruncated)
}
