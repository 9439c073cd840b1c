package report

import (
	"math"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Direction says which way a metric gets better.
type Direction int

// The directions a metric can have.
const (
	NoDirection    Direction = iota // a count or a size: neither is better
	HigherIsBetter                  // bandwidth, rates
	LowerIsBetter                   // times, latencies, CPU use, space used
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return ""
}

// namedDirections are the metrics whose direction their unit does not
// tell; the others follow their unit (see DirectionOf).
var namedDirections = map[string]Direction{
	// A fixed-size fio job's runtime follows its bandwidth, and a
	// time_based job's is fixed: the bandwidth carries the verdict.
	"read_runtime": NoDirection, "write_runtime": NoDirection,
	"fill_bytes": NoDirection, "fill_used": NoDirection, "exit_code": NoDirection,
	"fs_size": NoDirection, "inodes": NoDirection, "file_size": NoDirection,
	"fs_used": LowerIsBetter, "used_percent": LowerIsBetter, "fs_avail": HigherIsBetter,
	"inodes_free": HigherIsBetter, "kthreads_added": LowerIsBetter, "kworkers_added": LowerIsBetter,
	"ctx": LowerIsBetter, "kthread_ticks": LowerIsBetter,
	// sqlite_tps times a sqlite3 start to take it off the measurement.
	"startup": NoDirection,
	// What a filesystem adds to a workload's writes, and what reaches
	// the flash a day: less wears it less.
	"write_amplification": LowerIsBetter, "device_bytes_per_day": LowerIsBetter,
}

// DirectionOf returns the direction of a metric, from its name or else
// its unit: rates (a unit ending in "/s") are better higher; times,
// latencies and CPU percentages better lower.
func DirectionOf(metric, unit string) Direction {
	if d, ok := namedDirections[metric]; ok {
		return d
	}
	switch {
	case strings.HasPrefix(metric, "kthread_ticks."):
		return LowerIsBetter
	case strings.HasSuffix(unit, "/s"):
		return HigherIsBetter
	case unit == "s" || unit == "ms" || unit == "us" || unit == "s/GB":
		return LowerIsBetter
	case unit == "%" && (strings.HasSuffix(metric, "cpu") || strings.Contains(metric, "cpu_")):
		return LowerIsBetter
	}
	return NoDirection
}

// displayUnit converts the units of rates to decimal megabytes a second,
// the unit every chart and table of the report uses for bandwidth (fio
// stores KiB/s, bonnie++ K/s meaning KiB/s, postmark MiB/s).
func displayUnit(value float64, unit string) (float64, string) {
	var f float64
	switch unit {
	case "KiB/s", "K/s":
		f = 1024
	case "MiB/s":
		f = 1 << 20
	default:
		return value, unit
	}
	if v := value * f; !math.IsInf(v, 0) {
		return v / 1e6, "MB/s"
	}
	return value / 1e6 * f, "MB/s" // a value near the float range's end

}

// derivedMetrics computes the metrics the charts need that a recipe does
// not store: for a job that reports its user and system CPU (fio's
// usr_cpu and sys_cpu), its CPU use (usr + sys, %) and the CPU time it
// took per gigabyte moved (the ELC 2015 study's "normalized" efficiency).
func derivedMetrics(r *resultframe.Result) []resultframe.Metric {
	m := map[string]float64{}
	for _, x := range r.Metrics {
		m[x.Name] = x.Value
	}
	usr, ok1 := m["usr_cpu"]
	sys, ok2 := m["sys_cpu"]
	if !ok1 || !ok2 {
		return nil
	}
	out := []resultframe.Metric{{Name: "cpu_total", Value: usr + sys, Unit: "%"}}
	runtimeMS := max(m["read_runtime"], m["write_runtime"])
	bytes := m["read_bytes"] + m["write_bytes"]
	if runtimeMS > 0 && bytes > 0 {
		cpuSeconds := (usr + sys) / 100 * runtimeMS / 1000
		out = append(out, resultframe.Metric{Name: "cpu_s_per_gb", Value: cpuSeconds / (bytes / 1e9), Unit: "s/GB"})
	}
	return out
}
