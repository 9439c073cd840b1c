package recipes

import (
	"fmt"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// fio's sizes: the seed writes "500MB" and "4MB", which fio reads in powers of
// 1024 (its default kb_base=1024), so the defaults below are MiB and KiB.

func newFio() *Recipe {
	return &Recipe{
		Name:       "fio",
		Schema:     1,
		Summary:    "Bandwidth and CPU use of fio jobs over access pattern x block size x direct/buffered I/O.",
		Source:     Citation{ELC2015, "p.50-64 bandwidth, job on p.52 \"Bandwidth test conditions\"; p.71-76 CPU usage"},
		Target:     OnFilesystem,
		AccountsIO: true,
		Count:      "iterations",
		BoolWords: map[string][2]string{
			"direct": {"buffered", "direct"},
		},
		Needs: Needs{
			Prefers: []string{"fio"},
			Kernel:  []KernelNeed{{Why: "fio's built-in engine submits through Linux AIO, as fio's libaio does.", Config: []string{"AIO"}}},
		},
		Report: Report{
			Headline: []Headline{{"read_bw", "read", "MB/s", 1.024 / 1000}, {"write_bw", "write", "MB/s", 1.024 / 1000}},
			Criteria: []Criterion{
				{Name: "sequential bandwidth", Metrics: []string{"read_bw", "write_bw"}, Cases: "^(read|write|rw)-"},
				{Name: "random bandwidth", Metrics: []string{"read_bw", "write_bw"}, Cases: "^rand"},
				{Name: "CPU cost", Metrics: []string{"cpu_s_per_gb"}},
			},
			Charts: []Chart{
				{Kind: Bars, Slug: "fio-bandwidth-{test}", Title: "fio {test}: bandwidth per case",
					Bars:     []Bar{{Metric: "read_bw", Label: "read"}, {Metric: "write_bw", Label: "write"}},
					Measured: true, OrFirst: true, CaseLabels: CaseAlways, Split: true},
				{Kind: Bars, Slug: "fio-cpu-{test}", Title: "fio {test}: CPU use (usr + sys) during the job",
					Bars: []Bar{{Metric: "cpu_total"}}},
				{Kind: Bars, Slug: "fio-cpu-cost-{test}", Title: "fio {test}: CPU time per GB moved",
					Bars: []Bar{{Metric: "cpu_s_per_gb"}}},
				{Kind: Bars, Slug: "fio-kthread-cpu-{test}", Title: "fio {test}: kernel-thread CPU during the job",
					Bars: []Bar{{Metric: "kthread_cpu"}}},
			},
		},
		Fields: []fields.Field{
			{
				Name: "rw",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"randread", "randwrite", "read", "write", "randrw", "rw"},
				// Seed 000 p.52: "rw=[randread | randwrite | read | write]".
				Default: sweep("randread", "randwrite", "read", "write"),
				Doc:     "fio access pattern; rw and randrw mix reads and writes by rwmixread.",
			},
			{
				Name: "bs",
				Kind: fields.Size, Sweep: true,
				Min: fields.Bound(512), Max: fields.Bound(float64(units.GiB)), Multiple: 512,
				// Seed 000 p.52: "blocksize=[4MB | 4kB]".
				Default: sweep(4*units.MiB, 4*units.KiB),
				Unit:    "bytes",
				Doc:     "Block size of each I/O; a whole number of 512-byte sectors, as direct I/O needs.",
			},
			{
				Name: "direct",
				Kind: fields.Bool, Sweep: true,
				// Seed 000 p.52: "direct=[0 | 1]", "buffered=[1 | 0]";
				// the direct figures come first (p.53, p.57).
				Default: sweep(true, false),
				Doc:     "true: O_DIRECT, bypassing the page cache; false: buffered I/O.",
			},
			{
				Name: "size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(4 * units.KiB)),
				// Seed 000 p.52: "size=500MB".
				Default: 500 * units.MiB,
				Unit:    "bytes",
				Doc:     "Total size of the files of one job, shared among nrfiles files.",
			},
			{
				Name: "nrfiles",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(1000000),
				// Seed 000 p.52: "nrfiles=50".
				Default: int64(50),
				Doc:     "Number of files each job spreads its I/O over.",
			},
			{
				Name: "numjobs",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(256),
				// Seed 000 p.52: "numjobs=1" (p.50: "mono threaded");
				// the mixed test of p.60 is multi threaded.
				Default: int64(1),
				Doc:     "Number of parallel jobs (threads) doing the same work.",
			},
			{
				Name: "ioengine",
				Kind: fields.Enum,
				Enum: []string{"libaio", "psync", "sync"},
				// Seed 000 p.52: "ioengine=libaio".
				Default: "libaio",
				Doc:     "How fio issues I/O: libaio (Linux native asynchronous I/O), psync (pread/pwrite), sync (read/write).",
			},
			{
				Name: "iodepth",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(4096),
				// Not in the seed; fio's own default.
				Default: int64(1),
				Doc:     "I/Os kept in flight; above 1 only with ioengine libaio.",
			},
			{
				Name: "rwmixread",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(100),
				// Not in the seed; fio's own default.
				Default: int64(50),
				Unit:    "%",
				Doc:     "Share of reads in the mixed patterns rw and randrw.",
			},
			{
				Name: "runtime",
				Kind: fields.Duration,
				Min:  fields.Bound(1),
				Unit: "s",
				Doc:  "Stop each job after this long; absent, a job ends when it has done its I/O (the seed's way).",
			},
			{
				Name: "time_based",
				Kind: fields.Bool,
				// Not in the seed; fio's own default.
				Default: false,
				Doc:     "Keep running until runtime even when the I/O is done, looping over the files.",
			},
			{
				Name: "ramp_time",
				Kind: fields.Duration,
				Unit: "s",
				Doc:  "Run this long before measuring, so that caches and the flash translation layer settle.",
			},
			{
				Name: "fsync",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(1000000),
				// Not in the seed; fio's own default (never).
				Default: int64(0),
				Doc:     "fsync the file after this many writes; 0 never.",
			},
			{
				Name: "end_fsync",
				Kind: fields.Bool,
				// Not in the seed; fio's own default.
				Default: false,
				Doc:     "fsync every file when a write job ends, so that the bandwidth includes reaching the flash.",
			},
			{
				Name: "io_size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(4 * units.KiB)),
				Unit: "bytes",
				Doc: "Total I/O of a job, which may exceed size (fio loops over the files); seed 000 p.71 " +
					"measures CPU use over \"a fixed amount of I/O operations: 38GB\".",
			},
			{
				Name: "kthread_cpu",
				Kind: fields.Bool,
				// Seed 000 p.71-72 measure kernel threads in a separate
				// test; off so that the bandwidth runs stay as on p.52.
				Default: false,
				Doc:     "Also record the CPU ticks of every kernel thread from /proc/[pid]/stat before and after the job (seed 000 p.71).",
			},
			iterationsField(1, "Runs of each case; the report shows their mean and 95% interval (one run gives no interval: give more, or a settle block)."),
			timeoutField(time.Hour),
		},
		Check: checkFio,
	}
}

func checkFio(p Params) []Problem {
	var probs []Problem
	size, haveSize := intParam(p, "size")
	nrfiles, haveNr := intParam(p, "nrfiles")
	// One problem per kind, naming every block size at fault: a sweep
	// over bs must not repeat the same sentence for each value.
	var notMultiple, tooBig []string
	for _, bs := range intList(p, "bs") {
		if bs <= 0 {
			continue
		}
		if haveSize && size%bs != 0 {
			notMultiple = append(notMultiple, units.FormatSize(bs))
		}
		if haveSize && haveNr && nrfiles*bs > size {
			tooBig = append(tooBig, units.FormatSize(bs))
		}
	}
	if len(notMultiple) > 0 {
		probs = append(probs, Problem{"size", "Size not a multiple of the block size",
			fmt.Sprintf("size %s is not a multiple of bs %s; fio would skip the partial block, so the cases would not move the same data. Use a multiple of every bs.",
				units.FormatSize(size), strings.Join(notMultiple, ", "))})
	}
	if len(tooBig) > 0 {
		probs = append(probs, Problem{"nrfiles", "Files smaller than one block",
			fmt.Sprintf("nrfiles %d x bs %s is more than size %s, so each file would be smaller than one block. Lower nrfiles or raise size.",
				nrfiles, strings.Join(tooBig, ", "), units.FormatSize(size))})
	}
	if _, haveRuntime := p["runtime"]; boolParam(p, "time_based") && !haveRuntime {
		probs = append(probs, Problem{"time_based", "time_based without runtime",
			"time_based keeps a job running until runtime, but no runtime is set; set runtime or drop time_based."})
	}
	if depth, ok := intParam(p, "iodepth"); ok && depth > 1 {
		if engine, _ := stringParam(p, "ioengine"); engine != "libaio" {
			probs = append(probs, Problem{"iodepth", "Queue depth needs an asynchronous engine",
				fmt.Sprintf("iodepth %d has no effect with ioengine %q, which waits for each I/O; use ioengine \"libaio\" or iodepth 1.", depth, engine)})
		}
	}
	return probs
}

// FioLabel names a fio case the way the seed's charts do (seed 000 p.53-58):
// "Rand" or "Seq" after the access pattern, "Large" or "Small" after the
// block size (1MiB and above is large). It returns "" for a case without rw
// or bs.
func FioLabel(p Params) string {
	rw, ok := p["rw"].(string)
	bs, okBS := p["bs"].(int64)
	if !ok || !okBS {
		return ""
	}
	label := "Seq"
	if strings.HasPrefix(rw, "rand") {
		label = "Rand"
	}
	if bs >= units.MiB {
		return label + "Large"
	}
	return label + "Small"
}
