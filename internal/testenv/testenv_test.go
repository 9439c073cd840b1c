package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The helper is judged from outside: a child test process runs a test that
// needs a program no machine has, once plainly and once with
// FSBENCH_REQUIRE_TOOLS=1.
func TestMissingToolSkipsOrFails(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Tool(t, "fsbench-no-such-program")
		t.Log("reached after a missing tool")
		return
	}
	run := func(require string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingToolSkipsOrFails$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", RequireVar+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil || !strings.Contains(out, "--- SKIP") ||
		!strings.Contains(out, "needs fsbench-no-such-program (scripts/test.sh sets it up)") {
		t.Errorf("without %s: want a skip with the one wording, got %v:\n%s", RequireVar, err, out)
	}
	out, err = run("1")
	if err == nil || !strings.Contains(out, "--- FAIL") || strings.Contains(out, "reached after") {
		t.Errorf("with %s=1: want a failure that stops the test, got %v:\n%s", RequireVar, err, out)
	}
}

func TestPresentToolAndRun(t *testing.T) {
	sh := Tool(t, "sh")
	if sh == "" {
		t.Fatal("Tool returned no path for sh")
	}
	if got := Run(t, "in", "sh", "-c", "cat; echo out"); got != "inout\n" {
		t.Errorf("Run = %q", got)
	}
	p := SparseFile(t, 1<<20)
	if fi, err := os.Stat(p); err != nil || fi.Size() != 1<<20 {
		t.Errorf("SparseFile: %v %v", fi, err)
	}
}
