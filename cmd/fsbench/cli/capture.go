package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/wire/runplan"
)

// captureFlags are capture's flags.
type captureFlags struct {
	port, sock, reset, quit, logPath, results, priority, build *string
	baud                                                       *int
	rtscts                                                     *bool
	timeout, silence                                           *time.Duration
}

func registerCaptureFlags(env *Env) (*captureFlags, *flag.FlagSet) {
	fs := newFlagSet(env, "capture", "",
		"Read a serial console and print every line stamped with the time its first byte\narrived, as grabserial does: [seconds-since-base delta] line. Result frames from\nfsbench-runner are decoded into a JSONL results file; corrupted frames are\nreported, never stored. The capture ends by itself when the runner reports its\nplan complete (exit 0), or when a boot cannot go on (exit 12, with the console\nlines that show why); a capture that ends otherwise after results began to arrive\nexits 13. At the end, the boot milestones seen and the time from the root mount\nto the prompt are printed on stderr.")
	return &captureFlags{
		port:     fs.String("port", "", "the console to read: a serial device or pty (/dev/ttyUSB0, /dev/pts/3), or a console\nserver: rfc2217://HOST:PORT (ser2net's telnet(rfc2217), labgrid's NetworkSerialPort),\ntelnet://HOST:PORT, tcp://HOST:PORT (raw TCP)"),
		sock:     fs.String("unix", "", "QEMU unix-socket chardev to read instead of -port"),
		baud:     fs.Int("baud", capture.DefaultBaud, "baud rate of -port (on a console server, asked of it over RFC 2217)"),
		rtscts:   fs.Bool("rtscts", false, "hardware flow control on -port"),
		reset:    fs.String("reset", "", "regexp: restart the time base at a line matching it (anywhere in the line)"),
		quit:     fs.String("quit", "", "regexp: stop after a line matching it"),
		timeout:  fs.Duration("timeout", 0, "stop after this long (0: until the plan completes, the line hangs up or is interrupted)"),
		silence:  fs.Duration("silence", 0, "stop when the console stays quiet this long (default: with -build, from its plan's\nstep timeouts; otherwise never)"),
		logPath:  fs.String("log", "", "also write the exact bytes received to this file"),
		results:  fs.String("results", "", "append decoded results to this JSONL file (each result once)"),
		build:    fs.String("build", "", "the variant's build directory (OUT/VARIANT, as build wrote it): its plan names the\ntests whose boots the host times, the boot patterns and the board's root_wait, as\nrun uses them"),
		priority: fs.String("priority", "high", "scheduling of the threads that read the port: high (nice -10 when the user may raise it,\ne.g. as root; silently normal otherwise) or normal"),
	}, fs
}

func runCapture(env *Env, args []string) int {
	f, fs := registerCaptureFlags(env)
	if code, done := parse(fs, args); done {
		return code
	}
	if (*f.port == "") == (*f.sock == "") || fs.NArg() != 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: give exactly one of -port and -unix\n")
		return ExitUsage
	}
	opts, msg := f.captureOptions(env)
	if msg != "" {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", msg)
		return ExitUsage
	}
	copts, err := f.consoleOptions()
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	var src io.ReadCloser
	if *f.port != "" {
		src, err = capture.Open(*f.port, capture.Config{Baud: *f.baud, RTSCTS: *f.rtscts})
	} else {
		src, err = capture.OpenUnix(*f.sock)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	defer src.Close()
	files, err := openCaptureFiles(*f.results, *f.logPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	defer files.close()
	copts.Store = files.store

	defer pinProcs(env)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.Timeout, errCaptureTimeout)
		defer cancel()
	}
	rd := capture.NewReaderPriority(src, opts.Idle, opts.Priority)
	if files.raw != nil {
		rd.Raw = files.raw
	}
	defer rd.Close()
	env.Log.Debugf("reading threads' scheduling: %s", cmp.Or(rd.Sched(), "as the process"))
	lines := &sessionLines{rd: rd, s: capture.NewSession(opts), log: env}
	sum, err := console.FollowLines(ctx, lines, copts)
	res, ferr := lines.s.Finish(lines.stop(ctx, err))
	if cerr := files.close(); err == nil {
		err = cerr
	}
	return captureEnd(env, ctx, res, sum, cmp.Or(err, ferr))
}

// captureOptions reads the flags of the stamped output.
func (f *captureFlags) captureOptions(env *Env) (capture.Options, string) {
	opts := capture.Options{Timeout: *f.timeout, Out: env.Stdout, Milestones: capture.DefaultMilestones()}
	switch *f.priority {
	case "high":
		opts.Priority = capture.PriorityHigh
	case "normal":
		opts.Priority = capture.PriorityNormal
	default:
		return opts, fmt.Sprintf("-priority: %q is neither high nor normal", *f.priority)
	}
	for _, re := range []struct {
		flag string
		dst  **regexp.Regexp
		text string
	}{{"-reset", &opts.Reset, *f.reset}, {"-quit", &opts.Quit, *f.quit}} {
		if re.text == "" {
			continue
		}
		r, err := regexp.Compile(re.text)
		if err != nil {
			return opts, fmt.Sprintf("%s: %s", re.flag, err)
		}
		*re.dst = r
	}
	if *f.silence < 0 || *f.timeout < 0 {
		return opts, "-silence and -timeout take a positive duration"
	}
	return opts, ""
}

// consoleOptions is how the runner's plan is followed: from the build's
// plan with -build, the defaults otherwise.
func (f *captureFlags) consoleOptions() (console.Options, error) {
	var o console.Options
	if *f.build != "" {
		_, p, err := driver.LoadBuild(*f.build)
		if err != nil {
			return o, err
		}
		if o, err = driver.PlanConsole(p); err != nil {
			return o, err
		}
	}
	if *f.silence > 0 {
		o.Silence = *f.silence
	}
	o.StopWhenComplete = true
	return o, nil
}

// errCaptureTimeout is the cause of a capture's end at -timeout.
var errCaptureTimeout = errors.New("capture: -timeout")

// errQuit ends the following of the lines after the -quit line.
var errQuit = errors.New("capture: -quit matched")

// sessionLines hands the Reader's lines to the stamped output and then to
// the runner's plan.
type sessionLines struct {
	rd   *capture.Reader
	s    *capture.Session
	log  *Env
	quit bool
}

func (l *sessionLines) Next(ctx context.Context) (capture.Line, error) {
	if l.quit {
		return capture.Line{}, errQuit
	}
	line, err := l.rd.Next(ctx)
	if err != nil {
		return line, err
	}
	if l.quit, err = l.s.Line(line); err != nil {
		return line, err
	}
	if !line.Partial {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line.Text()), runplan.PowerCutMarker); ok {
			l.log.Log.Warnf("the runner asks for a power cut in %s s: switch the board off and on then", strings.TrimSpace(rest))
		}
	}
	return line, nil
}

// stop is why the capture ended, for its result.
func (l *sessionLines) stop(ctx context.Context, err error) capture.Stop {
	switch {
	case errors.Is(err, errQuit):
		return capture.StopQuit
	case context.Cause(ctx) == errCaptureTimeout:
		return capture.StopTimeout
	}
	return capture.StopEOF
}

// captureEnd reports how the capture ended and returns its exit code.
func captureEnd(env *Env, ctx context.Context, res *capture.Result, sum *console.Summary, err error) int {
	reportMilestones(env, res)
	if res != nil && res.Cut > 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: %d line(s) longer than %d bytes were cut there for printing and decoding; the -log file keeps every byte\n", res.Cut, capture.MaxLine)
	}
	if sum == nil {
		sum = &console.Summary{}
	}
	for _, p := range sum.Problems {
		env.Log.Warnf("result frame rejected (%s): %s", p.Code, p.Message)
	}
	if n := len(sum.Problems); n > 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: %d corrupted or incomplete result frame(s) rejected\n", n)
	}
	var store *console.StoreError
	switch {
	case errors.As(err, &store):
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	case errors.Is(err, console.ErrBootFailed), errors.Is(err, console.ErrPanics):
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitBootFailed
	case sum.Complete && len(sum.Missing()) > 0:
		fmt.Fprintf(env.Stderr, "fsbench capture: the runner reported its plan complete, but results %v never arrived intact\n", sum.Missing())
		return ExitIncomplete
	case sum.Complete:
		fmt.Fprintf(env.Stderr, "fsbench capture: the runner reported its plan complete: %d result(s)\n", len(sum.Results))
		return ExitOK
	case sum.Stop == "silence":
		fmt.Fprintf(env.Stderr, "fsbench capture: the runner did not report its plan complete (%d result(s)): %s\n", len(sum.Results), err)
		return ExitIncomplete
	case len(sum.Results) > 0 && !errors.Is(err, errQuit):
		fmt.Fprintf(env.Stderr, "fsbench capture: the capture ended (%s) before the runner reported its plan complete (%d result(s))\n", endReason(ctx, err), len(sum.Results))
		return ExitIncomplete
	case err != nil && !errors.Is(err, errQuit) && ctx.Err() == nil:
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	return ExitOK
}

// endReason says in a few words why a capture ended early.
func endReason(ctx context.Context, err error) string {
	switch {
	case context.Cause(ctx) == errCaptureTimeout:
		return "-timeout"
	case ctx.Err() != nil:
		return "interrupted"
	case err != nil:
		return err.Error()
	}
	return "the console hung up"
}

// captureProcs is the GOMAXPROCS capture runs with. The reading goroutine
// waits in the runtime's poller and the capture loop waits for lines: on
// one P they take turns on the thread the poller woke, and the wake-up
// of a line costs no second thread. The loop's work per line is a few
// microseconds; should its write block (a slow terminal), the runtime
// hands the P to another thread for the reading within the monitor's
// next tick. Two Ps measured 1.1-1.7x the CPU time of one at 16-byte
// bursts, with stamps no better (BENCHMARKS.md, "The reading goroutine
// waits in the runtime's poller").
const captureProcs = 1

// pinProcs sets GOMAXPROCS to captureProcs unless the user set it, and
// returns what puts it back.
func pinProcs(env *Env) (restore func()) {
	if lookupEnv(env.Environ, "GOMAXPROCS") != "" {
		return func() {}
	}
	was := runtime.GOMAXPROCS(captureProcs)
	return func() { runtime.GOMAXPROCS(was) }
}

func reportMilestones(env *Env, res *capture.Result) {
	if res == nil {
		return
	}
	for _, h := range res.Milestones {
		fmt.Fprintf(env.Stderr, "milestone %-10s at %10.6f s: %s\n", h.Name, h.Abs.Seconds(), h.Line)
	}
	if d, err := res.Interval("root-mount", "prompt"); err == nil {
		fmt.Fprintf(env.Stderr, "root mount to prompt: %.6f s\n", d.Seconds())
	}
}

// captureFiles are the raw log and the results store of a capture.
type captureFiles struct {
	raw    *os.File
	store  *console.Store
	closed bool
}

func openCaptureFiles(results, logPath string) (*captureFiles, error) {
	c := &captureFiles{}
	var err error
	if logPath != "" {
		if c.raw, err = os.Create(logPath); err != nil {
			return nil, err
		}
	}
	if results != "" {
		if c.store, err = console.OpenStore(results); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// close closes the files once and returns the first failure.
func (c *captureFiles) close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	var err error
	if c.raw != nil {
		err = c.raw.Close()
	}
	if c.store != nil {
		if serr := c.store.Close(); serr != nil && err == nil {
			err = fmt.Errorf("the results file: %w", serr)
		}
	}
	return err
}
