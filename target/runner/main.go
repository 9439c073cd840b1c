package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/fsbench/fsbench/wire/runplan"
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
	flags := map[string]*string{"plan": new(string), "state": new(string), "finally": new(string)}
	*flags["plan"] = runplan.PlanPath
	if help, err := parseFlags(args, flags); help || err != nil {
		w := stdout
		if err != nil {
			fmt.Fprintln(stderr, "fsbench-runner:", err)
			w = stderr
		}
		fmt.Fprint(w, usage)
		return map[bool]int{true: 0, false: 2}[err == nil]
	}
	planPath, state, finally := flags["plan"], flags["state"], flags["finally"]
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
	if os.Getenv(supervisedEnv) == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "fsbench-runner:", err)
			return 1
		}
		return supervise(exe, os.Args[1:], os.Environ(), stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err = Run(ctx, Options{Plan: p, StateDir: *state, Console: stdout, Finally: *finally, LAVA: opts["lava"] == "1"})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "fsbench-runner: stopped; the next start resumes")
			return 7
		}
		// The host ends the variant on this line (driver/console's
		// fatal lines) rather than wait for a plan that cannot go on.
		fmt.Fprintln(stderr, "fsbench-runner: error:", err)
		return 1
	}
	return 0
}

// parseFlags sets the options of run from args, "-name value" or
// "-name=value" (with one dash or two), as package flag reads them:
// package flag would add some 20KB to the runner for three options. help
// is true for -h or -help.
func parseFlags(args []string, flags map[string]*string) (help bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-") || a == "-" || a == "--":
			return false, fmt.Errorf("unexpected argument %q", a)
		case name == "h" || name == "help":
			return true, nil
		case flags[name] == nil:
			return false, fmt.Errorf("unknown option %s", a)
		case !hasValue && i+1 == len(args):
			return false, fmt.Errorf("option %s needs a value", a)
		case !hasValue:
			i++
			value = args[i]
		}
		*flags[name] = value
	}
	return false, nil
}

// supervisedEnv marks the runner process that a supervising parent
// started.
const supervisedEnv = "FSBENCH_RUNNER_SUPERVISED"

// maxRestarts bounds how often a crashed runner is started again: more than
// MaxAttempts, so that an iteration that crashes it every time is recorded
// as failed and the plan goes on.
const maxRestarts = 2 * MaxAttempts

// supervise runs the runner as a child process and starts it again when it
// crashes (a Go panic exits with status 2, a signal kills it): the new
// process resumes from the state file, as after a power cut, so a bug in
// one recipe costs that iteration, not the rest of the plan. A child that
// ends normally, with an error or stopped, ends the supervisor with it.
func supervise(exe string, args, env []string, stdout, stderr io.Writer) int {
	for start := 0; ; start++ {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(env, supervisedEnv+"=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, stdout, stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			fmt.Fprintln(stderr, "fsbench-runner:", err)
			return 1
		}
		if code != 2 && code != -1 {
			return code
		}
		if start >= maxRestarts {
			fmt.Fprintf(stderr, "fsbench-runner: crashed %d times; giving up\n", start+1)
			return 1
		}
		fmt.Fprintf(stdout, "fsbench-runner: the runner crashed (%v); starting it again to resume\n", err)
	}
}
