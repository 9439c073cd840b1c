package fio

import (
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Result is what one job measured, whichever engine ran it, in fio's units
// and with fio's group_reporting over the job's clones: bytes and I/Os
// summed, runtime the longest, CPU use the clones' average.
type Result struct {
	Engine   string // "fio" or "builtin"
	Version  string // fio --version, or BuiltinVersion
	IOEngine string // the ioengine that did the I/O

	Read, Write Side
	// Sync counts the fsyncs issued every Job.Fsync writes (fio's "sync"
	// section; end_fsync is not counted), with their latency.
	Sync SyncSide

	UsrCPU float64 // percent of the job's run time spent in user mode
	SysCPU float64 // percent of the job's run time spent in the kernel
	Ctx    int64   // context switches

	// Kthreads is the CPU time of kernel threads over the measured run;
	// nil unless Job.KthreadCPU.
	Kthreads *KthreadCPU
}

// Side is one direction of I/O, as fio's JSON "read" and "write" give it.
type Side struct {
	Bytes     int64   // io_bytes
	IOs       int64   // total_ios
	BW        int64   // KiB/s, fio's "bw": bytes*1000/runtime/1024, rounded down
	IOPS      float64 // total_ios*1000/runtime
	RuntimeMS int64   // runtime: how long the job ran after ramp_time, in ms

	Slat Latency // submission latency (libaio only)
	Clat Latency // completion latency, with percentiles
	Lat  Latency // total latency
}

// SyncSide is fio's JSON "sync" section.
type SyncSide struct {
	IOs int64
	Lat Latency
}

// Latency is one of fio's latency statistics, in microseconds (fio's JSON
// has nanoseconds).
type Latency struct {
	N                      int64
	Min, Max, Mean, Stddev float64
	Percentiles            []Percentile // fio's default list; only for Clat and Sync
}

// Percentile is the value (µs) below which P percent of the samples lie.
type Percentile struct {
	P     float64
	Value float64
}

// KthreadCPU is the CPU time kernel threads used between the start and the
// end of the measured run, in clock ticks (USER_HZ, 100 a second on Linux).
// With real fio the window is fio's whole process (after the layout), so it
// also holds fio's start and exit.
type KthreadCPU struct {
	WallMS int64 // length of the window
	Ticks  int64 // all kernel threads
	// ByName splits Ticks by thread name up to the first '/' ("kworker",
	// "jbd2", "f2fs_gc-254:1", ...), sorted by name; names without ticks
	// are left out.
	ByName []NamedTicks
}

// NamedTicks is the CPU time of the kernel threads of one name.
type NamedTicks struct {
	Name  string
	Ticks int64
}

// userHZ is the unit of /proc/[pid]/stat's times on every Linux
// architecture.
const userHZ = 100

// Metrics flattens r into result metrics with stable names: for each
// direction with I/O, "<dir>_bytes", "_ios", "_bw" (KiB/s), "_iops",
// "_runtime" (ms), "_clat_mean", "_clat_min", "_clat_max",
// "_clat_stddev", "_lat_mean", "_slat_mean" (libaio), and
// "_clat_p<P>" for fio's percentiles with '.' written '_' ("read_clat_p99_9");
// "sync_ios" and "sync_lat_mean" when fsyncs were issued; "usr_cpu",
// "sys_cpu" (%), "ctx"; and with kernel thread accounting "kthread_cpu"
// (% of the window), "kthread_ticks" and "kthread_ticks.<name>".
func (r *Result) Metrics() []resultframe.Metric {
	var ms []resultframe.Metric
	add := func(name string, v float64, unit string) {
		ms = append(ms, resultframe.Metric{Name: name, Value: v, Unit: unit})
	}
	for _, d := range []struct {
		name string
		s    *Side
	}{{"read", &r.Read}, {"write", &r.Write}} {
		s := d.s
		if s.IOs == 0 && s.Bytes == 0 {
			continue
		}
		add(d.name+"_bytes", float64(s.Bytes), "B")
		add(d.name+"_ios", float64(s.IOs), "")
		add(d.name+"_bw", float64(s.BW), "KiB/s")
		add(d.name+"_iops", s.IOPS, "IO/s")
		add(d.name+"_runtime", float64(s.RuntimeMS), "ms")
		add(d.name+"_clat_mean", s.Clat.Mean, "us")
		add(d.name+"_clat_min", s.Clat.Min, "us")
		add(d.name+"_clat_max", s.Clat.Max, "us")
		add(d.name+"_clat_stddev", s.Clat.Stddev, "us")
		for _, p := range s.Clat.Percentiles {
			add(d.name+"_clat_p"+percentileName(p.P), p.Value, "us")
		}
		add(d.name+"_lat_mean", s.Lat.Mean, "us")
		if s.Slat.N > 0 {
			add(d.name+"_slat_mean", s.Slat.Mean, "us")
		}
	}
	if r.Sync.IOs > 0 {
		add("sync_ios", float64(r.Sync.IOs), "")
		add("sync_lat_mean", r.Sync.Lat.Mean, "us")
	}
	add("usr_cpu", r.UsrCPU, "%")
	add("sys_cpu", r.SysCPU, "%")
	add("ctx", float64(r.Ctx), "")
	if k := r.Kthreads; k != nil {
		pct := 0.0
		if k.WallMS > 0 {
			pct = float64(k.Ticks) / userHZ * 1000 / float64(k.WallMS) * 100
		}
		add("kthread_cpu", pct, "%")
		add("kthread_ticks", float64(k.Ticks), "ticks")
		for _, n := range k.ByName {
			add("kthread_ticks."+n.Name, float64(n.Ticks), "ticks")
		}
	}
	return ms
}

// percentileName writes 99.95 as "99_95".
func percentileName(p float64) string {
	return strings.ReplaceAll(strconv.FormatFloat(p, 'f', -1, 64), ".", "_")
}
