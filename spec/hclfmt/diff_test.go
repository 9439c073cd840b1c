package hclfmt

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// diffCases are inputs whose diff -u output is compared hunk for hunk.
var diffCases = []struct{ name, a, b string }{
	{"change", "a\nb\nc\n", "a\nB\nc\n"},
	{"insert at start", "a\nb\n", "new\na\nb\n"},
	{"delete at end", "a\nb\nc\nd\ne\n", "a\nb\nc\n"},
	{"from empty", "", "a\nb\n"},
	{"to empty", "a\nb\n", ""},
	{"missing final newline", "a\nb", "a\nb\n"},
	{"both missing final newline", "a\nb", "a\nc"},
	{"changes 6 apart merge", numbered(20, 3, 10), numbered(20)},
	{"changes 7 apart split", numbered(20, 3, 11), numbered(20)},
	{"long context trimmed", numbered(30, 15), numbered(30)},
	{"replace block", "x\n1\n2\n3\ny\n", "x\n4\n5\ny\n"},
}

// numbered returns lines "1".."n", with the listed line numbers changed.
func numbered(n int, changed ...int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := strconv.Itoa(i)
		for _, c := range changed {
			if c == i {
				line = "changed " + line
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestDiffEqualIsNil(t *testing.T) {
	if d := Diff("x.hcl", []byte("a\n"), []byte("a\n")); d != nil {
		t.Errorf("Diff of equal inputs = %q, want nil", d)
	}
}

func TestDiffHeaders(t *testing.T) {
	d := string(Diff("dir/x.fsb.hcl", []byte("a\n"), []byte("b\n")))
	want := "--- a/dir/x.fsb.hcl\n+++ b/dir/x.fsb.hcl\n@@ -1 +1 @@\n-a\n+b\n"
	if d != want {
		t.Errorf("Diff =\n%s\nwant\n%s", d, want)
	}
}

// TestDiffMatchesDiffU compares Diff with the system's diff -u, headers
// aside (diff prints file names and timestamps there), on hand-picked
// cases and on every formatting fixture.
func TestDiffMatchesDiffU(t *testing.T) {
	testenv.Tool(t, "diff")
	for _, c := range diffCases {
		t.Run(c.name, func(t *testing.T) {
			compareWithDiffU(t, []byte(c.a), []byte(c.b))
		})
	}
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.in.hcl"))
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			golden := strings.TrimSuffix(in, ".in.hcl") + ".golden.hcl"
			compareWithDiffU(t, readFile(t, in), readFile(t, golden))
		})
	}
}

func compareWithDiffU(t *testing.T, a, b []byte) {
	t.Helper()
	want := hunksOnly(runDiffU(t, a, b))
	got := hunksOnly(string(Diff("x", a, b)))
	if got != want {
		t.Errorf("hunks differ from diff -u\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// runDiffU writes a and b to files and returns `diff -u` output.
func runDiffU(t *testing.T, a, b []byte) string {
	t.Helper()
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, a, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("diff", "-u", pa, pb).Output()
	// Exit status 1 means "files differ", which is the expected outcome.
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("diff -u: %v", err)
	}
	return string(out)
}

// hunksOnly drops the "---" and "+++" header lines.
func hunksOnly(d string) string {
	lines := strings.SplitAfter(d, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return d
	}
	return strings.Join(lines[2:], "")
}

// TestDiffRoundTrip checks on random inputs that applying Diff's hunks to a
// gives b, and that no hunk carries more context than allowed. It does not
// depend on diff(1), whose choice among equally short scripts may differ.
func TestDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		a, b := randomText(rng), randomText(rng)
		d := Diff("x", a, b)
		got, err := applyDiff(a, d)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("case %d: patch failed (err=%v)\na=%q\nb=%q\ndiff:\n%s", i, err, a, b, d)
		}
	}
}

// randomText draws a few lines from a tiny alphabet so that inputs share
// many lines, and sometimes drops the final newline.
func randomText(rng *rand.Rand) []byte {
	var b []byte
	for range rng.IntN(12) {
		b = append(b, "abcd"[rng.IntN(4)], '\n')
	}
	if len(b) > 0 && rng.IntN(4) == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// applyDiff is a minimal patch(1) for Diff's output: it checks every
// context and deleted line against a while copying.
func applyDiff(a, d []byte) ([]byte, error) {
	src := splitLines(a)
	var out []string
	pos := 0
	lines := splitLines(d)
	for i := 2; i < len(lines); i++ { // skip the two header lines
		line := lines[i]
		if strings.HasPrefix(line, "@@") {
			var start int
			fmt.Sscanf(line, "@@ -%d", &start)
			if strings.HasPrefix(line, fmt.Sprintf("@@ -%d,0 ", start)) {
				start++ // an empty range names the line before it
			}
			for pos < start-1 {
				out = append(out, src[pos])
				pos++
			}
			continue
		}
		text := line[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
			text = strings.TrimSuffix(text, "\n")
			i++
		}
		switch line[0] {
		case ' ', '-':
			if pos >= len(src) || src[pos] != text {
				return nil, fmt.Errorf("line %d: have %q, diff says %q", pos+1, src, text)
			}
			if line[0] == ' ' {
				out = append(out, text)
			}
			pos++
		case '+':
			out = append(out, text)
		}
	}
	out = append(out, src[pos:]...)
	return []byte(strings.Join(out, "")), nil
}
