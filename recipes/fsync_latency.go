package recipes

import (
	"fmt"
	"math"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// The seed compares ext4 mounted with and without write barriers. That
// comparison is two variants of the partition's mount options in the spec
// (a matrix over ["barrier"] and ["nobarrier"], or barrier=0 for ext4; xfs
// refuses nobarrier since Linux 4.19), not a field of this recipe: the same
// test then runs on each variant and the report sets them side by side.

func newFsyncLatency() *Recipe {
	return &Recipe{
		Name:       "fsync_latency",
		Schema:     1,
		Summary:    "Latency distribution of write+fsync (or fdatasync) calls on a file.",
		Source:     Citation{Ext4Barrier, "slide 7 \"Dex2oat Fsync latency\" and slide 9 \"SQLite Fsync latency\""},
		Target:     OnFilesystem,
		AccountsIO: true,
		Count:      "iterations",
		Report: Report{Criteria: []Criterion{{Name: "fsync latency", Metrics: []string{"mean"}}}, Charts: []Chart{{Kind: LatencyCDF, PerCase: true,
			Slug: "fsync-latency-{test}-{case}", Title: "fsync latency {test} {case}: distribution (CDF)"}},
			Settle: []string{"mean"}, More: []string{"calls_per_s", "min", "max"}},
		Fields: []fields.Field{
			{
				Name: "write_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.GiB)),
				// Seed 001 gives no size; slide 9 measures SQLite, whose
				// pages are 4KiB.
				Default: 4 * units.KiB,
				Unit:    "bytes",
				Doc:     "Bytes written before each sync call.",
			},
			{
				Name: "count",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(100000000),
				// Seed 001 gives averages only; 1000 is the fewest calls
				// that give p99.9 a sample of its own.
				Default: int64(1000),
				Doc:     "Number of write+sync calls measured.",
			},
			{
				Name: "call",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"fsync", "fdatasync"},
				// Seed 001 slides 7 and 9: "Fsync latency" (slide 5:
				// dex2oat calls fdatasync, "similar to fsync").
				Default: sweep("fsync"),
				Doc:     "Sync call after each write.",
			},
			{
				Name: "pattern",
				Kind: fields.Enum,
				Enum: []string{"append", "overwrite"},
				// Seed 001 slide 5: dex2oat writes new output files.
				Default: "append",
				Doc:     "append: grow the file, so each sync also commits metadata; overwrite: rewrite a preallocated file in place, as a database does.",
			},
			{
				Name: "percentiles",
				Kind: fields.Float, List: true,
				Min: fields.Bound(0), Max: fields.Bound(100),
				// Seed 001 reports averages; these are the usual tail
				// percentiles, reported next to the mean.
				Default: sweep(50.0, 90.0, 99.0, 99.9),
				Unit:    "%",
				Doc:     "Percentiles of the latency reported besides the mean, in increasing order.",
			},
			iterationsField(1, "Runs of each case; the report shows the mean of each percentile over the runs and its 95% interval."),
			timeoutField(10 * time.Minute),
		},
		Check: checkFsyncLatency,
	}
}

func checkFsyncLatency(p Params) []Problem {
	var probs []Problem
	pcts := floatList(p, "percentiles")
	for i := 1; i < len(pcts); i++ {
		if pcts[i] <= pcts[i-1] {
			probs = append(probs, Problem{"percentiles", "Percentiles not increasing",
				fmt.Sprintf("percentiles lists %g after %g; list each percentile once, in increasing order.", pcts[i], pcts[i-1])})
			break
		}
	}
	count, ok := intParam(p, "count")
	if !ok || len(pcts) == 0 {
		return probs
	}
	top := pcts[0]
	for _, x := range pcts {
		top = math.Max(top, x)
	}
	if need := samplesFor(top); count < need {
		probs = append(probs, Problem{"count", "Too few samples for the highest percentile",
			fmt.Sprintf("p%g needs at least %d calls to rest on a measured sample, but count is %d; raise count or drop the percentile.", top, need, count)})
	}
	return probs
}

// samplesFor returns the fewest samples for which the p-th percentile is
// not the maximum: at least one sample must lie above it.
func samplesFor(p float64) int64 {
	if p >= 100 {
		return 1
	}
	// 1e-9 absorbs the binary rounding of 100/(100-99.9).
	return int64(math.Ceil(100/(100-p) - 1e-9))
}
