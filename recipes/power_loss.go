package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

// One iteration: boot, mount with the case's mode, write, lose power while
// writing; on the next boot record the mount's return code and messages, the
// checker's verdict and, with data_check, whether data synced before the cut
// survived. The report's outcome bars (seed 000 p.94-95: Errors, AutoFix,
// Fsck, Fatal) come from these records.

func newPowerLoss() *Recipe {
	return &Recipe{
		Name:        "power_loss",
		Schema:      1,
		Summary:     "Power cut while writing, repeated over reboots; classifies how the filesystem comes back.",
		Source:      Citation{ELC2015, "p.92-95 \"Corruption of the filesystem\""},
		Target:      OnDevice,
		Reboots:     true,
		Destructive: true,
		Count:       "iterations",
		Needs: Needs{Checker: true, Mkfs: true, Kernel: []KernelNeed{{
			Why:    "power_loss cuts the power with the hardware watchdog: the runner arms it and stops feeding it.",
			Config: []string{"WATCHDOG", "WATCHDOG_CORE"}, Watchdog: true,
		}}},
		Report: Report{
			Criteria: []Criterion{{Name: "power-loss robustness", Outcomes: true, Weight: 3, Share: "data"}},
			Outcomes: []Axis{
				{"consistency", []string{"Clean", "AutoFix", "Errors", "Fsck", "Fatal"}, 2},
				{"data", dataClasses, 2},
			},
			Charts: []Chart{{Kind: Outcomes, Slug: "power_loss-{test}-{axis}", Title: "Power loss {test}: {axis} outcomes"}},
		},
		Fields: concat(
			[]fields.Field{
				iterationsField(
					// Seed 000 p.93: "Test ran for 226 iterations for each
					// use case".
					226,
					"Power cuts per case."),
				{
					Name: "mount",
					Kind: fields.Enum, Sweep: true,
					Enum: []string{"async", "sync"},
					// Seed 000 p.93: "Mounts with sync and async options".
					Default: sweep("async", "sync"),
					Doc:     "Mount mode added to the partition's mount options for the case.",
				},
				{
					Name: "writer",
					Kind: fields.Enum, Sweep: true,
					Enum: []string{"small_files", "large_file", "fsync"},
					// Seed 000 p.93: "Write files".
					Default: sweep("small_files"),
					Doc: "What is being written when the power goes: small_files (new files of small_file_size, " +
						"metadata heavy), large_file (one file of large_file_size after another), fsync " +
						"(4KiB appends each followed by fsync, like a log).",
				},
				{
					Name: "trigger",
					Kind: fields.Enum,
					Enum: []string{"watchdog", "host_kill"},
					// Seed 000 p.93: "rely on the watchdog to cut power".
					Default: "watchdog",
					Doc:     "watchdog: the runner arms /dev/watchdog and stops feeding it; host_kill: the host's power-cycle command cuts the board.",
				},
				{
					Name: "cut_after",
					Kind: fields.Duration,
					Min:  fields.Bound(1), Max: fields.Bound(3600),
					// Not in the seed; long enough for the writer to be
					// well under way on a slow card.
					Default: (10 * time.Second).String(),
					Unit:    "s",
					Doc:     "Time from the start of the writes to the cut; with the watchdog trigger it is the watchdog timeout.",
				},
				{
					Name: "data_check",
					Kind: fields.Bool,
					// Seed 000 p.93 checks the mount and fsck; checking the
					// synced data as well tells silent loss from a clean
					// mount.
					Default: true,
					Doc:     "After the reboot, verify the checksums of the files that were synced before the cut.",
				},
				{
					Name: "fsck",
					Kind: fields.Bool,
					// Seed 000 p.93: "Check for mount return code, mount
					// errors/warnings, fsck result".
					Default: true,
					Doc:     "Run the filesystem's checker (read-only) after the mount check.",
				},
			},
			writerSizeFields(),
			[]fields.Field{timeoutField(5 * time.Minute)},
		),
		Check: checkPowerLoss,
	}
}

func checkPowerLoss(p Params) []Problem {
	var probs []Problem
	if trigger, _ := stringParam(p, "trigger"); trigger == "watchdog" {
		probs = append(probs, wholeSeconds(p, "cut_after", "the watchdog timeout (WDIOC_SETTIMEOUT)")...)
	}
	probs = append(probs, beforeTimeout(p, "cut_after", "the power is cut")...)
	return probs
}
