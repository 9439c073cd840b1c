// Package cli is the fsbench command line: it parses flags, calls the
// packages that do the work, and writes data to stdout and logs and
// diagnostics to stderr. It holds no logic of its own beyond presentation
// (the run summary's table, the reference's layout), so tests run every
// command in-process through Main; it lives beside the fsbench binary's
// main, its only user. It must never configure logging for a library,
// print data to stderr, or exit the process (Main returns the exit code).
package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// Exit codes, by category. Scripts may rely on them.
const (
	ExitOK          = 0 // success
	ExitInvalid     = 1 // the spec (or a var-file) has errors
	ExitUsage       = 2 // wrong command-line usage
	ExitChanged     = 3 // fmt -check: a file is not canonical
	ExitIO          = 4 // a file could not be read or written
	ExitInternal    = 5 // a bug in fsbench
	ExitBuild       = 6 // a build step failed (a host tool, a checker)
	ExitInterrupted = 7 // interrupted by a signal; nothing partial was left
	ExitRegression  = 8 // report -fail-on-regression: the comparison found a regression
	// plan -compare: what the change changes.
	ExitTestsChanged = 9  // only the tests (the run plan); the layout and filesystems are the same
	ExitImageChanged = 10 // the images
	ExitBreaking     = 11 // the images, in a way that breaks an installed base
	// capture: how the target's run ended.
	ExitBootFailed = 12 // a boot could not go on (or the kernel panicked again and again)
	ExitIncomplete = 13 // results arrived, but the capture ended before the plan completed
)

// Version is set at link time (-ldflags "-X github.com/fsbench/fsbench/cmd/fsbench/cli.Version=...").
var Version = "dev"

// Env is what a command may see of its process: arguments, streams and
// the environment, passed explicitly so that tests can run commands
// in-process.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Environ []string
	Log     *logrus.Logger
}

type command struct {
	name    string
	summary string
	run     func(env *Env, args []string) int
}

func commands() []command {
	return []command{
		{"import", "write a spec from a genimage.cfg, a wic .wks or a repart.d layout", runImport},
		{"validate", "check a spec and report every problem with its location", runValidate},
		{"fmt", "rewrite specs in canonical HCL style", runFmt},
		{"plan", "show the resolved layout, command lines, bootargs and tests", runPlan},
		{"build", "build the disk images, manifest, bootargs and bootloader files", runBuild},
		{"bootargs", "print the kernel command line of each variant", runBootargs},
		{"kconfig", "print the kernel configuration fragment the spec needs", runKconfig},
		{"buildvars", "print the Buildroot or Yocto settings the spec needs", runBuildvars},
		{"run", "build, boot on QEMU, run the tests and print the results", runRun},
		{"lava", "write LAVA jobs for a lab, submit them, and read their results back", runLAVA},
		{"capture", "timestamp a serial console and collect the runner's results", runCapture},
		{"crash-state", "rebuild a state of a crash_states campaign from its write log, as a partition image", runCrashState},
		{"report", "turn results into an HTML and Markdown report with charts, CSV and JSON", runReport},
		{"reference", "print every filesystem, tuning option, mount option and recipe", runReference},
		{"version", "print the fsbench version", runVersion},
	}
}

// Main runs the fsbench command line and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Environ: environ, Log: newLogger(stderr, environ)}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(rest) > 0 {
			return Main(append(rest[:1:1], "-h"), stdin, stdout, stderr, environ)
		}
		usage(stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(env, rest)
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	fmt.Fprintf(stderr, "fsbench: unknown command %q.%s Run 'fsbench help'.\n", name, didYouMean(name, names))
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: fsbench <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'fsbench <command> -h' for a command's flags.\n")
	fmt.Fprintf(w, "\nExit codes: 0 ok, 1 invalid spec, 2 usage error, 3 fmt -check found changes,\n4 file error, 5 internal error, 6 build step failed, 7 interrupted,\n8 report found a regression (-fail-on-regression); plan -compare: 9 only the tests\nchange, 10 the images change, 11 they change in a way that breaks an installed base;\ncapture: 12 a boot could not go on, 13 the capture ended before the plan completed.\n")
}

// newLogger builds the command's logger: diagnostics on stderr, level
// from FSBENCH_LOG (error, warn, info, debug, trace). Without it, a
// terminal gets progress (info) and anything else, CI included, only
// warnings.
func newLogger(stderr io.Writer, environ []string) *logrus.Logger {
	log := logrus.New()
	log.Out = stderr
	log.Level = logrus.WarnLevel
	if isTerminal(stderr) && lookupEnv(environ, "CI") == "" {
		log.Level = logrus.InfoLevel
	}
	log.Formatter = &logrus.TextFormatter{DisableTimestamp: true}
	if lvl := lookupEnv(environ, "FSBENCH_LOG"); lvl != "" {
		if l, err := logrus.ParseLevel(lvl); err == nil {
			log.Level = l
		} else {
			log.Warnf("FSBENCH_LOG=%q is not a log level; using warn", lvl)
		}
	}
	return log
}

func lookupEnv(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

func runVersion(env *Env, args []string) int {
	fs := newFlagSet(env, "version", "", "Print the fsbench version.")
	if code, done := parse(fs, args); done {
		return code
	}
	fmt.Fprintf(env.Stdout, "fsbench %s\n", version())
	return ExitOK
}

// Run is the entry point of cmd/fsbench.
func Run() int {
	return Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
}

// isTerminal reports whether w is a terminal, where progress is welcome.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
