package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

// The seed measures a 1GB filesystem. That size is the partition's, set in
// the spec (see examples/), not a field here: a second size in the test block
// could only disagree with the partition.

func newMountTime() *Recipe {
	return &Recipe{
		Name:       "mount_time",
		Schema:     1,
		Summary:    "Real, user and system time of mounting a partly filled filesystem, with its type given by -t.",
		Source:     Citation{ELC2015, "p.69-70 \"Mount time\" (a 1GB filesystem, 60% filled)"},
		Target:     OnPartition,
		AccountsIO: true,
		Count:      "iterations",
		Report: Report{
			Criteria: []Criterion{{Name: "mount time", Metrics: []string{"mount_time"}}},
			Headline: []Headline{{"mount_time", "mount", "ms", 1000}},
			Charts: []Chart{{Kind: Bars, Slug: "mount_time-{test}", Title: "Mount time {test}: real, user and system",
				Bars: timeBars("mount")}},
		},
		Fields: concat(
			[]fields.Field{iterationsField(
				// Not in the seed; as many mounts as boot_time boots.
				10,
				"Number of mounts measured, each after an unmount.")},
			fillFields(
				// Seed 000 p.69: "a large rootfs (1GB) 60% filled".
				60,
				"Percentage of the filesystem filled before the first mount; the fill stays for all iterations and is removed at the end when a later step works on the partition (otherwise it stays in /fsbench-fill until the next fill replaces it). A filesystem that is already fuller (space other steps used, or nilfs2 without its cleaner) gets no fill, and the runner logs that."),
			[]fields.Field{
				{
					Name: "specify_type",
					Kind: fields.Bool,
					// Seed 000 p.69: "The filesystem type needs to be
					// specified using the -t option in order to avoid the
					// lookup of the filesystem."
					Default: true,
					Doc:     "Give the filesystem type to mount (-t) so that the time does not include probing.",
				},
				{
					Name: "drop_caches",
					Kind: fields.Bool,
					// Not in the seed; a mount at boot finds no cache either.
					Default: true,
					Doc:     "Sync and drop the page cache (echo 3 > /proc/sys/vm/drop_caches) before each mount.",
				},
				timeoutField(5 * time.Minute),
			},
		),
	}
}
