package cli

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fsbench/fsbench/driver/benchboard"
)

// The CLI is tested as txtar scripts in testdata/script: each runs fsbench
// and checks its stdout, stderr and exit code. `go test -run TestScripts
// -update-scripts` rewrites the expected outputs in place, for review.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the expected outputs of the txtar scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fsbench": func() { os.Exit(Run()) },
		// The power switch of the bench board (TestBoardByHand).
		benchboard.Command: func() { os.Exit(benchboard.Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *updateScripts,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exits,
			// sleep DURATION: let a background command get under way.
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				d, err := time.ParseDuration(strings.Join(args, ""))
				ts.Check(err)
				time.Sleep(d)
			},
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("FSBENCH_LOG", "warn")
			return nil
		},
	})
}

// exits runs a command and checks its exit code: `exits 3 fsbench fmt -check`.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// A spec or variable file that is no regular file, or one without end,
// is refused at once; nothing blocks or grows without bound.
func TestNonRegularInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "ok.fsb.hcl")
	if err := os.WriteFile(spec, []byte("image \"d\" {\n  size = \"64MiB\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", "/dev/zero"}, {"validate", "-var-file", "/dev/zero", spec}, {"validate", "-var-file", "/dev/urandom", spec},
		{"validate", fifo}, {"validate", "-var-file", fifo, spec}, {"fmt", "-check", "/dev/zero"}, {"plan", fifo},
	} {
		done := make(chan int, 1)
		var stdout, stderr strings.Builder
		go func() { done <- Main(args, strings.NewReader(""), &stdout, &stderr, nil) }()
		select {
		case code := <-done:
			if code != ExitIO || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("%v: exit %d:\n%s", args, code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%v blocked", args)
		}
	}
}
