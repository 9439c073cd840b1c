package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fsbench/fsbench/runplan"
)

// Main is the runner's command line: `fsbench-runner run [flags]` executes
// the baked-in plan; the init hooks start it once per boot. It returns the
// exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"run"}
	}
	switch args[0] {
	case "run":
		return mainRun(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "fsbench-runner", Version)
		return 0
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "fsbench-runner: unknown command %q\n%s", args[0], usage)
	return 2
}

const usage = `usage: fsbench-runner run [-plan FILE] [-state DIR] [-finally stay|reboot|poweroff]
       fsbench-runner version

run executes the test plan that fsbench build placed in the image, from
where it stopped: progress is kept in DIR/state.json, results go to the
console as frames and to DIR/results.jsonl.
`

func mainRun(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	planPath := fl.String("plan", runplan.PlanPath, "the compiled plan")
	state := fl.String("state", "", "state directory (default: the plan's)")
	finally := fl.String("finally", "", "when the plan is done: stay, reboot or poweroff (default: the kernel's fsbench.finally=, else stay)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	p, err := runplan.Load(*planPath)
	if err != nil {
		fmt.Fprintln(stderr, "fsbench-runner:", err)
		return 1
	}
	opts := cmdlineOptions()
	if *finally == "" {
		*finally = opts["finally"]
	}
	switch *finally {
	case "", "stay", "reboot", "poweroff":
	default:
		fmt.Fprintf(stderr, "fsbench-runner: -finally %q: want stay, reboot or poweroff\n", *finally)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err = Run(ctx, Options{Plan: p, StateDir: *state, Console: stdout, Finally: *finally, LAVA: opts["lava"] == "1"})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "fsbench-runner: stopped; the next start resumes")
			return 7
		}
		fmt.Fprintln(stderr, "fsbench-runner:", err)
		return 1
	}
	return 0
}
