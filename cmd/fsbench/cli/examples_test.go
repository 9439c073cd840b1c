package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb, nil)
	return code, out.String(), errb.String()
}

func examples(t *testing.T) []string {
	files, err := filepath.Glob("../../../examples/*.fsb.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	return files
}

// TestExamples checks every example the way a reviewer relies on it:
// it validates, it is formatted, and its plan matches the golden file.
func TestExamples(t *testing.T) {
	for _, path := range examples(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".fsb.hcl")
		t.Run(name, func(t *testing.T) {
			if code, _, stderr := runMain(t, "validate", path); code != ExitOK {
				t.Fatalf("validate exited %d:\n%s", code, stderr)
			}
			if code, stdout, _ := runMain(t, "fmt", "-check", path); code != ExitOK {
				t.Errorf("fmt -check exited %d: %s", code, stdout)
			}
			code, stdout, stderr := runMain(t, "plan", path)
			if code != ExitOK {
				t.Fatalf("plan exited %d:\n%s", code, stderr)
			}
			golden.Check(t, filepath.Join("testdata", "examples", name+".plan.txt"), []byte(stdout), *update)
		})
	}
}

var fingerprintLine = regexp.MustCompile(`(?m)^fingerprint: (sha256:[0-9a-f]{64})$`)

// TestPlanFingerprint checks that the fingerprint is the same run to run
// and changes when any input does: a variable, or a file the spec reads.
func TestPlanFingerprint(t *testing.T) {
	fp := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runMain(t, append([]string{"plan"}, args...)...)
		if code != ExitOK {
			t.Fatalf("plan %v exited %d:\n%s", args, code, stderr)
		}
		m := fingerprintLine.FindStringSubmatch(stdout)
		if m == nil {
			t.Fatalf("no fingerprint in:\n%s", stdout)
		}
		return m[1]
	}
	quick := "../../../examples/quickstart.fsb.hcl"
	a, b := fp(quick), fp(quick)
	if a != b {
		t.Fatalf("fingerprint differs run to run: %s vs %s", a, b)
	}
	if c := fp("-var", "fio_size=32MiB", quick); c == a {
		t.Errorf("a changed variable kept the fingerprint %s", a)
	}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "rootfs", "etc"), 0o755)
	os.WriteFile(filepath.Join(dir, "rootfs", "etc", "hostname"), []byte("board\n"), 0o644)
	spec := filepath.Join(dir, "s.fsb.hcl")
	os.WriteFile(spec, []byte(`image "d" {
  size = "64MiB"
  partition "root" {
    size = "32MiB"
    root = true
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
}
`), 0o644)
	before := fp(spec)
	os.WriteFile(filepath.Join(dir, "rootfs", "etc", "hostname"), []byte("other\n"), 0o644)
	if after := fp(spec); after == before {
		t.Errorf("changing a file in the contents directory kept the fingerprint %s", before)
	}
}

// TestReferenceDoc keeps docs/reference.md equal to `fsbench reference`.
func TestReferenceDoc(t *testing.T) {
	code, stdout, stderr := runMain(t, "reference")
	if code != ExitOK {
		t.Fatalf("reference exited %d: %s", code, stderr)
	}
	for _, want := range []string{"### ext4", "### nilfs2", "### fio", "### dm_flakey", "`stride`", "`linux-root-arm64`"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("reference lacks %s", want)
		}
	}
	golden.Check(t, "../../../docs/reference.md", []byte(stdout), *update)
}
