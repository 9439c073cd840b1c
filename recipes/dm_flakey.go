package recipes

import (
	"slices"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/wire/runplan"
)

// dm-flakey (Documentation/admin-guide/device-mapper/dm-flakey.rst) maps a
// device that is healthy for <up interval> seconds, then faulty for <down
// interval> seconds, in a cycle:
//
//	<dev> <offset> <up interval> <down interval> [<num_features> [<features>]]
//
// Without features every I/O fails while down. drop_writes ignores writes,
// error_writes fails them, and corrupt_bio_byte <Nth_byte> <direction>
// <value> <flags> replaces byte Nth (counting from 1) of each matching bio
// with value (0-255), for bios whose bi_opf has every bit of flags set.
// Direction 'w' cannot be combined with drop_writes or error_writes; one
// fault per case keeps that so. Intervals are unsigned whole seconds and
// must not both be 0.
//
// The seed's two schedules: "after" is up=after, then down for the rest of
// the run (the runner writes the run's remaining time as the down interval);
// "flapping" is up=flap_up, down=flap_down.

func newDMFlakey() *Recipe {
	return &Recipe{
		Name:        "dm_flakey",
		Schema:      1,
		Summary:     "Writes through a dm-flakey device that corrupts, drops or fails I/O, then a normal remount and inspection.",
		Source:      Citation{ELC2015, "p.92 and p.96-103 \"Detection/recovery of corrupted files\""},
		Target:      OnDevice,
		Destructive: true,
		Count:       "iterations",
		Needs: Needs{Checker: true, Mkfs: true, Kernel: []KernelNeed{{
			Why:    "dm_flakey puts a device-mapper flakey target over its partition.",
			Config: []string{"MD", "BLK_DEV_DM", "DM_FLAKEY"}, Modules: []string{"dm_flakey"},
		}}},
		Report: Report{
			Criteria: []Criterion{{Name: "fault robustness (dm-flakey)", Outcomes: true, Weight: 2, Share: "data"}},
			Outcomes: []Axis{
				// NoFault, last: no I/O met the fault; such an iteration
				// is counted and shown, and ranked in no verdict.
				{"consistency", []string{"Clean", "AutoRO", "AutoFix", "Fsck", "Fatal", "NoFault"}, 3},
				{"data", append(slices.Clone(dataClasses), "NoFault"), 2},
			},
			Charts: []Chart{{Kind: Outcomes, Slug: "dm_flakey-{test}-{axis}", Title: "dm-flakey faults {test}: {axis} outcomes"}},
		},
		Fields: concat(
			[]fields.Field{
				iterationsField(
					// Seed 000 p.97: "Test done on 15 iterations".
					15,
					"Runs per case; the filesystem is recreated before each."),
				{
					Name: "fault",
					Kind: fields.Enum, Sweep: true,
					Enum: []string{"corrupt_writes", "corrupt_reads", "drop_writes", "error_writes", "error_all"},
					// Seed 000 p.96: "corrupt the first byte of each block:
					// write 00" (p.92 also lists drop_writes and corrupted
					// reads).
					Default: sweep("corrupt_writes"),
					Doc: "What the device does while down: corrupt_writes / corrupt_reads (corrupt_bio_byte with " +
						"direction w / r), drop_writes, error_writes, error_all (no feature: every I/O fails).",
				},
				{
					Name: "schedule",
					Kind: fields.Enum, Sweep: true,
					Enum: []string{"after", "flapping"},
					// Seed 000 p.96: "Corrupt all writes after 10 seconds"
					// and "Corrupt all writes for 1 seconds then allow
					// writes for 1 second (trickiest)".
					Default: sweep("after", "flapping"),
					Doc:     "after: healthy for `after`, then faulty to the end; flapping: faulty and healthy in turns (flap_down, flap_up).",
				},
				{
					Name: "writer",
					Kind: fields.Enum, Sweep: true,
					Enum: []string{"large_file", "small_files"},
					// Seed 000 p.96: "Write a 30MB random file and sync the
					// device", "Write multiple 1MB file and sync the disk".
					Default: sweep("large_file", "small_files"),
					Doc:     "large_file: one random file of large_file_size; small_files: small_files files of small_file_size; then sync.",
				},
				{
					Name: "after",
					Kind: fields.Duration,
					Min:  fields.Bound(0), Max: fields.Bound(86400),
					// Seed 000 p.96: "after 10 seconds".
					Default: (10 * time.Second).String(),
					Unit:    "s",
					Doc:     "Healthy time before the fault of the after schedule (the up interval).",
				},
				{
					Name: "flap_up",
					Kind: fields.Duration,
					Min:  fields.Bound(0), Max: fields.Bound(86400),
					// Seed 000 p.96: "allow writes for 1 second".
					Default: time.Second.String(),
					Unit:    "s",
					Doc:     "Healthy time of each cycle of the flapping schedule.",
				},
				{
					Name: "flap_down",
					Kind: fields.Duration,
					Min:  fields.Bound(0), Max: fields.Bound(86400),
					// Seed 000 p.96: "Corrupt all writes for 1 seconds".
					Default: time.Second.String(),
					Unit:    "s",
					Doc:     "Faulty time of each cycle of the flapping schedule.",
				},
				{
					Name: "corrupt_byte",
					Kind: fields.Int,
					Min:  fields.Bound(1), Max: fields.Bound(4294967295),
					// Seed 000 p.96: "the first byte of each block" (p.103:
					// "0x00 at offset 0"); dm-flakey counts from 1.
					Default: int64(1),
					Doc:     "corrupt_bio_byte <Nth_byte>: which byte of each bio to replace, counting from 1.",
				},
				{
					Name: "corrupt_value",
					Kind: fields.Int,
					Min:  fields.Bound(0), Max: fields.Bound(255),
					// Seed 000 p.96: "write 00".
					Default: int64(0),
					Doc:     "corrupt_bio_byte <value>: the byte written in its place.",
				},
				{
					Name: "corrupt_flags",
					Kind: fields.Int,
					Min:  fields.Bound(0), Max: fields.Bound(4294967295),
					// Not in the seed: 0 corrupts every bio.
					Default: int64(0),
					Doc:     "corrupt_bio_byte <flags>: corrupt only bios whose bi_opf has all these bits set (kernel-version specific; 0 for all).",
				},
				{
					Name: "fsck",
					Kind: fields.Bool,
					// Seed 000 p.97 classifies outcomes as AutoRO, AutoFix,
					// Fsck and Fatal, which needs the checker's verdict.
					Default: true,
					Doc:     "Run the filesystem's checker (read-only) after the normal remount.",
				},
			},
			writerSizeFields(),
			[]fields.Field{timeoutField(10 * time.Minute)},
		),
		Check: checkDMFlakey,
	}
}

func checkDMFlakey(p Params) []Problem {
	var probs []Problem
	for _, name := range []string{"after", "flap_up", "flap_down"} {
		probs = append(probs, wholeSeconds(p, name, "the dm-flakey table")...)
	}
	schedules := stringList(p, "schedule")
	if slices.Contains(schedules, "flapping") {
		if down, ok := durationParam(p, "flap_down"); ok && down == 0 {
			probs = append(probs, Problem{"flap_down", "Flapping device never faulty",
				"flap_down is 0, so the flapping schedule never injects a fault; give it at least 1s."})
		}
	}
	if slices.Contains(schedules, "after") {
		probs = append(probs, beforeTimeout(p, "after", "the fault starts")...)
	}
	return probs
}

// DMFlakeyFeatures returns the feature arguments of the dm-flakey table for
// one dm_flakey case (after <num_features>, which is their count), so that
// the plan can show them: the seed's case gives corrupt_bio_byte 1 w 0 0.
// error_all has none. The device and the intervals are the runner's.
func DMFlakeyFeatures(p Params) []string {
	fault, _ := stringParam(p, "fault")
	byteN, _ := intParam(p, "corrupt_byte")
	value, _ := intParam(p, "corrupt_value")
	flags, _ := intParam(p, "corrupt_flags")
	return runplan.FlakeyFeatures(fault, byteN, value, flags)
}
