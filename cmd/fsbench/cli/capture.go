package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"syscall"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/wire/resultframe"
)

func runCapture(env *Env, args []string) int {
	fs := newFlagSet(env, "capture", "",
		"Read a serial console and print every line stamped with the time its first byte\narrived, as grabserial does: [seconds-since-base delta] line. Result frames from\nfsbench-runner are decoded into a JSONL results file; corrupted frames are\nreported, never stored. At the end, the boot milestones seen and the time from\nthe root mount to the prompt are printed on stderr.")
	port := fs.String("port", "", "serial device or pty to read (e.g. /dev/ttyUSB0, /dev/pts/3)")
	sock := fs.String("unix", "", "QEMU unix-socket chardev to read instead of -port")
	baud := fs.Int("baud", capture.DefaultBaud, "baud rate of -port")
	rtscts := fs.Bool("rtscts", false, "hardware flow control on -port")
	reset := fs.String("reset", "", "regexp: restart the time base at a line matching it (anywhere in the line)")
	quit := fs.String("quit", "", "regexp: stop after a line matching it")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: until the line hangs up or is interrupted)")
	logPath := fs.String("log", "", "also write the exact bytes received to this file")
	results := fs.String("results", "", "append decoded results to this JSONL file")
	priority := fs.String("priority", "high", "scheduling of the threads that read the port: high (nice -10 when the user may raise it,\ne.g. as root; silently normal otherwise) or normal")
	if code, done := parse(fs, args); done {
		return code
	}
	if (*port == "") == (*sock == "") || fs.NArg() != 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: give exactly one of -port and -unix\n")
		return ExitUsage
	}
	opts := capture.Options{Timeout: *timeout, Out: env.Stdout, Milestones: capture.DefaultMilestones()}
	switch *priority {
	case "high":
		opts.Priority = capture.PriorityHigh
	case "normal":
		opts.Priority = capture.PriorityNormal
	default:
		fmt.Fprintf(env.Stderr, "fsbench capture: -priority: %q is neither high nor normal\n", *priority)
		return ExitUsage
	}
	for _, re := range []struct {
		flag string
		dst  **regexp.Regexp
		text string
	}{{"-reset", &opts.Reset, *reset}, {"-quit", &opts.Quit, *quit}} {
		if re.text == "" {
			continue
		}
		r, err := regexp.Compile(re.text)
		if err != nil {
			fmt.Fprintf(env.Stderr, "fsbench capture: %s: %s\n", re.flag, err)
			return ExitUsage
		}
		*re.dst = r
	}
	var src *os.File
	var err error
	if *port != "" {
		src, err = capture.OpenSerial(*port, capture.Config{Baud: *baud, RTSCTS: *rtscts})
	} else {
		src, err = capture.OpenUnix(*sock)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	defer src.Close()
	sink, err := newResultSink(env, *results, *logPath)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	defer sink.close()
	opts.Raw = sink

	defer pinProcs(env)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := capture.Capture(ctx, src, opts)
	sink.finish()
	if res != nil {
		env.Log.Debugf("reading threads' scheduling: %s", cmp.Or(res.Sched, "as the process"))
	}
	// A result that could not be stored is lost: the command fails,
	// whatever else happened.
	if serr := sink.close(); serr != nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", serr)
		return ExitIO
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "fsbench capture: %s\n", err)
		return ExitIO
	}
	reportMilestones(env, res)
	if res != nil && res.Cut > 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: %d line(s) longer than %d bytes were cut there for printing and decoding; the -log file keeps every byte\n", res.Cut, capture.MaxLine)
	}
	if sink.problems > 0 {
		fmt.Fprintf(env.Stderr, "fsbench capture: %d corrupted or incomplete result frame(s) rejected\n", sink.problems)
	}
	return ExitOK
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

// resultSink receives the raw console bytes: it keeps them in the log
// file and decodes result frames from them into the results file.
type resultSink struct {
	env      *Env
	log      *os.File
	results  *os.File
	enc      *json.Encoder
	buf      *bufio.Writer
	dec      *resultframe.Decoder
	problems int
	// err is the first failure to store a result; it stops the capture
	// (Write returns it) and fails the command.
	err    error
	closed bool
}

func newResultSink(env *Env, results, logPath string) (*resultSink, error) {
	s := &resultSink{env: env, dec: resultframe.NewDecoder()}
	var err error
	if logPath != "" {
		if s.log, err = os.Create(logPath); err != nil {
			return nil, err
		}
	}
	if results != "" {
		if s.results, err = os.OpenFile(results, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			return nil, err
		}
		s.buf = bufio.NewWriter(s.results)
		s.enc = json.NewEncoder(s.buf)
	}
	return s, nil
}

func (s *resultSink) Write(b []byte) (int, error) {
	if s.log != nil {
		if _, err := s.log.Write(b); err != nil {
			return 0, fmt.Errorf("the log: %w", err)
		}
	}
	s.handle(s.dec.Feed(b))
	if s.err != nil {
		return 0, s.err
	}
	return len(b), nil
}

func (s *resultSink) handle(events []resultframe.Event) {
	for _, ev := range events {
		switch {
		case ev.Result != nil:
			if s.enc != nil && s.err == nil {
				// Flushed at once: a result on disk survives a crash of
				// the capture.
				err := s.enc.Encode(ev.Result)
				if err == nil {
					err = s.buf.Flush()
				}
				if err != nil {
					s.err = fmt.Errorf("storing result %d of run %s: %w", ev.Result.Seq, ev.Result.RunID, err)
				}
			}
		case ev.Problem != nil:
			s.problems++
			s.env.Log.Warnf("result frame rejected (%s): %s", ev.Problem.Code, ev.Problem.Message)
		}
	}
}

// finish reports frames left incomplete when the capture stops.
func (s *resultSink) finish() { s.handle(s.dec.Close()) }

// close flushes, syncs and closes the files once, and returns the first
// failure to store a result.
func (s *resultSink) close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.log != nil {
		s.log.Close()
	}
	if s.results != nil {
		for _, err := range []error{s.buf.Flush(), s.results.Sync(), s.results.Close()} {
			if err != nil && s.err == nil {
				s.err = fmt.Errorf("the results file: %w", err)
			}
		}
	}
	return s.err
}

var _ io.Writer = (*resultSink)(nil)
