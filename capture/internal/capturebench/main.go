// Command capturebench measures how exactly `fsbench capture` stamps the
// lines of a serial console, against Debian's grabserial and a minimal
// blocking reader: bench/capture-vs-grabserial.sh runs it. It is not part
// of fsbench.
//
// Usage: capturebench -log bench/boot.log -fsbench PATH [flags]
//
// The tools are fsbench capture, grabserial, "minimal" (a goroutine of
// this process blocked in read(2)), "minimal-rt" (the same with its thread
// at SCHED_FIFO, when allowed) and "minimal-proc" (the same loop in a
// child process, for a CPU figure comparable with fsbench's). For each run
// and tool it opens a fresh pty, starts the tool on the slave, waits until
// the tool waits for
// input, plays the log into the master at the line rate with the boot's
// own pauses, and compares the tool's stamps with the recorded send times
// of each line's first byte. It prints the medians over the runs of every
// tool's median, p99 and max per-line error, the error of the root-mount-
// to-prompt interval and its CPU time, and with -json writes them and the
// runs' figures to a file.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsbench/fsbench/capture"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == spinFlag {
		spin()
	}
	if len(os.Args) > 1 && os.Args[1] == readerFlag {
		if err := childReader(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "capturebench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "capturebench:", err)
		os.Exit(1)
	}
}

type options struct {
	logPath, fsbench, grabserial string
	runs, load, baud, fifo       int
	scale                        float64
	ref, prompt, quit            string
	jsonPath, work               string
	variants                     []variant
	network                      []netSpec
	only                         string
}

// variant is one more fsbench capture run beside the main one: another
// build or other flags, compared in the same rotation of runs, so that a
// drift of the machine's load hits both alike.
type variant struct {
	name string
	argv []string // the binary and the flags added after "capture"
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.logPath, "log", "bench/boot.log", "console log to play")
	flag.StringVar(&o.fsbench, "fsbench", "fsbench", "fsbench binary")
	flag.StringVar(&o.grabserial, "grabserial", "grabserial", "grabserial program")
	flag.IntVar(&o.runs, "n", 5, "runs per tool")
	flag.IntVar(&o.load, "load", 0, "spinning processes that load the machine during the runs")
	flag.IntVar(&o.baud, "baud", capture.DefaultBaud, "line rate of the playback and of the tools' port setting")
	flag.IntVar(&o.fifo, "fifo", 16, "bytes per write into the pty (a UART FIFO)")
	flag.Float64Var(&o.scale, "timescale", 1, "scale of the boot's pauses (kernel timestamps); 0: back to back")
	flag.StringVar(&o.ref, "ref", `VFS: Mounted root`, "regexp of the reference line (the root mount): the tools reset their time base there")
	flag.StringVar(&o.prompt, "prompt", `login: `, "regexp of the prompt line")
	flag.StringVar(&o.quit, "quit", `fsbench-runner: reboot`, "regexp of the last line, on which the tools quit")
	flag.StringVar(&o.jsonPath, "json", "", "write the figures to this file as JSON")
	flag.StringVar(&o.work, "work", "", "directory for the tools' outputs (default: a temporary one, removed)")
	flag.StringVar(&o.only, "tools", "", "comma-separated names of the tools to run (default: all)")
	flag.Func("network", "`SCHEME[+chardelay],...`: also run fsbench capture through a ser2net on localhost serving the pty, over rfc2217, telnet or tcp (+chardelay: with ser2net's default delay after each byte)", func(v string) error {
		n, err := parseNetwork(v)
		o.network = append(o.network, n...)
		return err
	})
	flag.Func("variant", "`NAME=BINARY [FLAG...]`: also run BINARY capture FLAG... as tool NAME (repeatable; fields split on spaces)", func(v string) error {
		name, rest, ok := strings.Cut(v, "=")
		argv := strings.Fields(rest)
		if !ok || name == "" || len(argv) == 0 {
			return fmt.Errorf("want NAME=BINARY [FLAG...], got %q", v)
		}
		o.variants = append(o.variants, variant{name: name, argv: argv})
		return nil
	})
	flag.Parse()
	return o
}

// setup is everything the runs share.
type setup struct {
	log         *bootLog
	chunks      []chunk
	lineChunk   []int
	ref, prompt int
	tools       []tool
}

func run() error {
	o := parseFlags()
	if flag.NArg() != 0 || o.runs < 1 || o.load < 0 || o.fifo < 1 || o.scale < 0 {
		flag.Usage()
		return fmt.Errorf("bad arguments")
	}
	s, err := prepare(o)
	if err != nil {
		return err
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "capturebench"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	if o.load > 0 {
		stop, err := startLoad(o.load)
		if err != nil {
			return err
		}
		defer stop()
	}
	results, err := runAll(s, o.runs, work)
	if err != nil {
		return err
	}
	rep := newReport(o, s, results)
	rep.print(os.Stdout)
	if o.jsonPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(o.jsonPath, append(b, '\n'), 0o644)
	}
	return nil
}

// runAll does the runs and logs each run's figures on stderr.
func runAll(s *setup, runs int, work string) (map[string][]figures, error) {
	results := make(map[string][]figures)
	for r := range runs {
		dir := filepath.Join(work, fmt.Sprintf("run-%d", r+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		// Each run starts with another tool, so that a slow drift of the
		// machine does not always favour the same one.
		for j := range s.tools {
			t := s.tools[(r+j)%len(s.tools)]
			f, err := runOnce(s, t, dir)
			if err != nil {
				return nil, fmt.Errorf("run %d, %s: %w", r+1, t.name, err)
			}
			results[t.name] = append(results[t.name], f)
			note := ""
			if f.Hangup {
				note = "  (hung up)"
			}
			fmt.Fprintf(os.Stderr, "run %d %-10s median %7.1f µs  p99 %8.1f µs  max %8.1f µs  interval %8.1f µs  lag p99 %8.1f µs  CPU %.3f s  %5.0f ctx sw  %3.0f majflt%s\n",
				r+1, t.name, f.Median*1e6, f.P99*1e6, f.Max*1e6, f.Interval*1e6, f.LagP99*1e6, f.CPU, f.Switches, f.MajFlt, note)
		}
	}
	return results, nil
}

func prepare(o options) (*setup, error) {
	l, err := readBootLog(o.logPath)
	if err != nil {
		return nil, err
	}
	s := &setup{log: l}
	var quit int
	for _, p := range []struct {
		expr string
		idx  *int
	}{{o.ref, &s.ref}, {o.prompt, &s.prompt}, {o.quit, &quit}} {
		re, err := regexp.Compile(p.expr)
		if err != nil {
			return nil, err
		}
		if *p.idx, err = l.find(re); err != nil {
			return nil, err
		}
	}
	if quit != len(l.lines)-1 {
		return nil, fmt.Errorf("-quit %q first matches line %d, not the last line (%d)", o.quit, quit+1, len(l.lines))
	}
	s.chunks = schedule(l, o.baud, o.fifo, o.scale)
	s.lineChunk = lineChunks(l, s.chunks)
	// Both tools get a timeout as a backstop; they quit on the last line.
	limit := s.chunks[len(s.chunks)-1].at + 30*time.Second
	baud := strconv.Itoa(o.baud)
	captureArgv := func(argv []string) func(slave string) []string {
		return func(slave string) []string {
			return append([]string{argv[0], "capture"}, append(argv[1:], "-port", slave, "-baud", baud,
				"-reset", o.ref, "-quit", o.quit, "-timeout", limit.String())...)
		}
	}
	s.tools = []tool{
		externalTool("fsbench", captureArgv([]string{o.fsbench}), l, s.ref),
		// -S before -d: grabserial only knows real serial ports otherwise.
		// -m is matched at the start of the line (re.match), hence ".*".
		externalTool("grabserial", func(slave string) []string {
			return []string{o.grabserial, "-S", "-d", slave, "-b", baud, "-t",
				"-m", ".*" + o.ref, "-q", o.quit, "-e", strconv.Itoa(int(limit.Seconds()))}
		}, l, s.ref),
		minimalTool(o.baud, len(l.lines)),
	}
	if realtimeAllowed() {
		s.tools = append(s.tools, minimalRTTool(o.baud, len(l.lines)))
	} else {
		fmt.Fprintln(os.Stderr, "capturebench: no minimal-rt: this process may not use SCHED_FIFO (it needs root or CAP_SYS_NICE)")
	}
	child, err := childReaderTool(o.baud, o.ref, o.quit, l, s.ref)
	if err != nil {
		return nil, err
	}
	s.tools = append(s.tools, child)
	for _, v := range o.variants {
		s.tools = append(s.tools, externalTool(v.name, captureArgv(v.argv), l, s.ref))
	}
	for _, n := range o.network {
		s.tools = append(s.tools, networkTool(n.name, n.scheme, n.chardelay, captureArgv([]string{o.fsbench}), o.baud, l, s.ref))
	}
	if o.only != "" {
		names := strings.Split(o.only, ",")
		s.tools = slices.DeleteFunc(s.tools, func(t tool) bool { return !slices.Contains(names, t.name) })
		if len(s.tools) != len(names) {
			return nil, fmt.Errorf("-tools %q: unknown or repeated tool name", o.only)
		}
	}
	return s, nil
}

// settle is a pause between "waits for input" and the first byte, the
// same for every tool: the minimal reader reports before its first read(2).
const settle = 20 * time.Millisecond

// runOnce plays the log once to one tool on a fresh pty.
func runOnce(s *setup, t tool, dir string) (figures, error) {
	master, slave, err := capture.OpenPTY()
	if err != nil {
		return figures{}, err
	}
	var once sync.Once
	hangup := func() { once.Do(func() { master.Close() }) }
	defer hangup()
	sess, err := t.start(slave, dir)
	if err != nil {
		return figures{}, err
	}
	if err := sess.ready(); err != nil {
		hangup()
		_, _ = sess.finish(hangup)
		return figures{}, err
	}
	time.Sleep(settle)
	sent, err := play(master, s.log.data, s.chunks)
	if err != nil {
		hangup()
		_, _ = sess.finish(hangup)
		return figures{}, fmt.Errorf("playback: %w", err)
	}
	c, err := sess.finish(hangup)
	if err != nil {
		return figures{}, err
	}
	sends := make([]float64, len(s.log.lines))
	for i, ci := range s.lineChunk {
		sends[i] = sent[ci].Sub(sent[0]).Seconds()
	}
	if err := writeLines(filepath.Join(dir, t.name+".lines"), s.log, c.stamps, sends, s.ref); err != nil {
		return figures{}, err
	}
	f := lineErrors(c.stamps, sends, s.ref, s.prompt)
	f.CPU, f.Startup, f.Hangup = c.cpu.Seconds(), c.startup.Seconds(), c.hangup
	f.Switches, f.MajFlt = float64(c.switches), float64(c.majflt)
	return f, nil
}

// writeLines keeps the per-line figures of a run for a closer look: line
// number, send time and stamp relative to the reference line, error (µs),
// and the line's start.
func writeLines(path string, l *bootLog, stamps, sends []float64, ref int) error {
	var b []byte
	for i, ln := range l.lines {
		send, stamp := sends[i]-sends[ref], stamps[i]-stamps[ref]
		b = fmt.Appendf(b, "%d\t%.6f\t%.6f\t%.1f\t%.50q\n", i+1, send, stamp, (stamp-send)*1e6, ln.text)
	}
	return os.WriteFile(path, b, 0o644)
}
