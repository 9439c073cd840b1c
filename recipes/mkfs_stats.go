package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

// mkfs_stats measures the filesystem as fsbench build made it, so it needs an
// empty partition and never reformats: the size and options of mkfs are the
// spec's, and the image builder records the mkfs version in the manifest.

func newMkfsStats() *Recipe {
	return &Recipe{
		Name:       "mkfs_stats",
		Schema:     1,
		Summary:    "Size and space used of an empty filesystem, and the kernel threads its mount creates.",
		Source:     Citation{ELC2015, "p.79 \"Mkfs stats\" and p.80 (kernel threads per filesystem)"},
		Target:     OnPartition,
		NeedsEmpty: true,
		ReadOnly:   true,
		Count:      "iterations",
		Report: Report{Criteria: []Criterion{{Name: "space overhead", Metrics: []string{"fs_used"}}}, Charts: []Chart{
			{Kind: Bars, Slug: "mkfs-space-{test}", Title: "mkfs {test}: space used on the empty filesystem",
				Bars: []Bar{{Metric: "fs_used", Label: "used when empty"}}},
			{Kind: Bars, Slug: "mkfs-kthreads-{test}", Title: "mkfs {test}: kernel threads started by the mount",
				Bars: []Bar{{Metric: "kthreads_added", Label: "filesystem threads"}, {Metric: "kworkers_added", Label: "pool workers"}}},
		}},
		Fields: []fields.Field{
			iterationsField(
				// Seed 000 p.79-80 give single readings.
				1,
				"Number of mount/measure/unmount rounds; more than one shows whether the thread count varies."),
			{
				Name: "settle",
				Kind: fields.Duration,
				Min:  fields.Bound(0), Max: fields.Bound(600),
				// Not in the seed; some filesystems (btrfs) start worker
				// threads shortly after the mount returns.
				Default: (2 * time.Second).String(),
				Unit:    "s",
				Doc:     "Wait this long after the mount before counting kernel threads.",
			},
			timeoutField(2 * time.Minute),
		},
	}
}
