package cli

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI is tested as txtar scripts in testdata/script: each runs fsbench
// and checks its stdout, stderr and exit code. `go test -run TestScripts
// -update-scripts` rewrites the expected outputs in place, for review.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the expected outputs of the txtar scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fsbench": func() { os.Exit(Run()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *updateScripts,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exits,
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
