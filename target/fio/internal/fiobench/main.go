// Command fiobench runs one fio job through runner/fio, with real fio or
// the built-in engine, and prints the result as JSON: the benchmark
// bench/fio-vs-builtin.sh compares the two engines with it. It is not part
// of the runner.
//
// Usage: fiobench -engine builtin|fio -dir DIR -rw randread -bs 4k -size 1g [flags]
//
// The JSON object has the Result, its metrics, and vmhwm_kib, the peak
// resident set size of this process (which runs the built-in engine
// in-process; fio runs as a child process and is not in it).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/target/fio"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fiobench:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		j                fio.Job
		opt              fio.Options
		bs, size, ioSize string
		noDrop           bool
	)
	flag.StringVar(&opt.Engine, "engine", fio.EngineAuto, "auto, fio or builtin")
	flag.StringVar(&opt.FioPath, "fio", "", "fio binary (default: fio in PATH)")
	flag.BoolVar(&noDrop, "no-drop-caches", false, "do not drop the page cache before buffered jobs")
	flag.StringVar(&j.Name, "name", "fiobench", "job name")
	flag.StringVar(&j.Dir, "dir", "", "directory of the job's files")
	flag.StringVar(&j.RW, "rw", fio.RWRead, "read, write, randread, randwrite, rw, randrw")
	flag.StringVar(&bs, "bs", "4k", "block size (k, m, g: powers of 1024)")
	flag.StringVar(&size, "size", "64m", "size of the job's files")
	flag.StringVar(&ioSize, "io_size", "0", "bytes of I/O (0: size)")
	flag.BoolVar(&j.Direct, "direct", false, "O_DIRECT")
	flag.IntVar(&j.NrFiles, "nrfiles", 1, "files per job")
	flag.IntVar(&j.NumJobs, "numjobs", 1, "clones of the job")
	flag.StringVar(&j.IOEngine, "ioengine", fio.IOEnginePsync, "libaio, psync, sync")
	flag.IntVar(&j.IODepth, "iodepth", 1, "I/Os in flight (libaio)")
	flag.IntVar(&j.RWMixRead, "rwmixread", 50, "percent of reads for rw and randrw")
	flag.DurationVar(&j.Runtime, "runtime", 0, "stop after this long")
	flag.BoolVar(&j.TimeBased, "time_based", false, "run for the whole runtime")
	flag.DurationVar(&j.RampTime, "ramp_time", 0, "run this long before measuring")
	flag.IntVar(&j.Fsync, "fsync", 0, "fsync every N writes")
	flag.BoolVar(&j.EndFsync, "end_fsync", false, "fsync the files at the end")
	flag.BoolVar(&j.KthreadCPU, "kthreads", false, "record kernel threads' CPU time")
	flag.Parse()
	var err error
	if j.BS, err = parseSize(bs); err != nil {
		return err
	}
	if j.Size, err = parseSize(size); err != nil {
		return err
	}
	if j.IOSize, err = parseSize(ioSize); err != nil {
		return err
	}
	if noDrop {
		opt.DropCaches = func() error { return nil }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := fio.Run(ctx, j, opt)
	if err != nil {
		return err
	}
	hwm, err := vmHWM()
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(struct {
		*fio.Result
		Metrics  any   `json:"metrics"`
		VmHWMKiB int64 `json:"vmhwm_kib"`
	}{r, r.Metrics(), hwm})
}

// parseSize reads 4k, 4m, 1g (powers of 1024) or a number of bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToLower(s[len(s)-1:]) {
	case "k":
		mult = 1 << 10
	case "m":
		mult = 1 << 20
	case "g":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	return n * mult, nil
}

// vmHWM is the peak resident set size of this process, in KiB.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}
