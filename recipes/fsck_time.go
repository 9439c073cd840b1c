package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

// nilfs2 has no checker (seed 000 p.81); the plan reports fsck_time on it as
// not applicable instead of failing on the target.

func newFsckTime() *Recipe {
	return &Recipe{
		Name:    "fsck_time",
		Schema:  1,
		Summary: "Real, system and user time of the filesystem's checker on a clean, unmounted filesystem.",
		Source:  Citation{ELC2015, "p.81-82 \"Fsck\""},
		Target:  OnPartition,
		Count:   "iterations",
		Needs:   Needs{Checker: true, CheckerOnly: true},
		Report: Report{
			Criteria: []Criterion{{Name: "fsck time", Metrics: []string{"fsck_time"}}},
			Headline: []Headline{{"fsck_time", "fsck", "s", 1}},
			Charts: []Chart{{Kind: Bars, Slug: "fsck_time-{test}", Title: "fsck time {test}: real, user and system",
				Bars: timeBars("fsck")}},
		},
		Fields: concat(
			[]fields.Field{
				iterationsField(
					// Not in the seed; as many runs as mount_time.
					10,
					"Number of checks measured."),
				{
					Name: "force",
					Kind: fields.Bool,
					// Seed 000 p.82 times the check of a "clean
					// filesystem", which e2fsck skips unless forced (-f).
					Default: true,
					Doc:     "Force a full check of a clean filesystem (e2fsck -f, fsck.f2fs -f).",
				},
				{
					Name: "read_only",
					Kind: fields.Bool,
					// Seed 000 p.82 checks clean filesystems: nothing to
					// repair.
					Default: true,
					Doc:     "Check without repairing (e2fsck -n, btrfs check --readonly, xfs_repair -n, fsck.f2fs --dry-run).",
				},
			},
			fillFields(
				// Seed 000 p.82 says "clean filesystem" and no fill; 0
				// checks the filesystem as built, like the mkfs stats of
				// p.79.
				0,
				"Percentage of the filesystem filled before the first check; the fill stays for all iterations and is removed at the end when a later step works on the partition (otherwise it stays in /fsbench-fill until the next fill replaces it). A filesystem that is already fuller (space other steps used, or nilfs2 without its cleaner) gets no fill, and the runner logs that."),
			[]fields.Field{timeoutField(30 * time.Minute)},
		),
	}
}
