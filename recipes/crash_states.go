package recipes

import (
	"fmt"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// crash_states is power_loss without the power cut: a dm-log-writes target
// (Documentation/admin-guide/device-mapper/log-writes.rst) records every
// write, flush and FUA of the filesystem's creation and a workload onto the
// log partition; the runner then replays the log onto the zeroed partition,
// stopping at each crash point, and at each one mounts a snapshot of the
// device (the journal or log replays into the snapshot, not the device),
// runs the checker read-only and checks the data the workload had made
// durable before that point. It is the method of xfstests generic/455 and
// generic/482 (replay-log) on the board's own kernel. Each campaign's
// result counts its states in the classes of power_loss, as metrics
// consistency.<class> and data.<class>.

// crashWorkloads are what the workload may be.
var crashWorkloads = []string{"small_files", "large_file", "fsync", "rename", "churn", "sqlite"}

func newCrashStates() *Recipe {
	return &Recipe{
		Name:    "crash_states",
		Schema:  1,
		Summary: "Records a workload's writes with dm-log-writes, then checks every state a power cut could leave by replaying the log.",
		Source:  Citation{ELC2015, "p.92-95 \"Corruption of the filesystem\" (power_loss), checked at every flush instead of at random cuts"},
		Target:  OnDevice,
		// A campaign survives a reboot or a power cut: it resumes after
		// its last checked state.
		Reboots:     true,
		Destructive: true,
		Count:       "iterations",
		Needs: Needs{Checker: true, Mkfs: true, Kernel: []KernelNeed{{
			Why:    "crash_states records the workload with a dm-log-writes target and checks each replayed state in a dm-snapshot.",
			Config: []string{"MD", "BLK_DEV_DM", "DM_LOG_WRITES", "DM_SNAPSHOT"}, Modules: []string{"dm_log_writes", "dm_snapshot"},
		}, {
			Why:    "crash_states replays the states in memory, on loop devices over a tmpfs, where the memory allows (replay_on).",
			Config: []string{"BLK_DEV_LOOP", "TMPFS"}, Modules: []string{"loop"},
		}}, CasePrograms: crashPrograms},
		Report: Report{
			// A case whose device ignores flushes is named by its flush
			// word; it answers the study's barrier question apart.
			Criteria: []Criterion{
				{Name: "crash-state robustness", Outcomes: true, Weight: 3, Share: "data", Except: ignoredCases},
				{Name: "survives a device that ignores flush", Outcomes: true, Weight: 1, Share: "data", Cases: ignoredCases},
			},
			Outcomes: []Axis{
				{"consistency", []string{"Clean", "AutoFix", "Errors", "Fsck", "Fatal"}, 2},
				{"data", dataClasses, 2},
			},
			OutcomeCounts: true,
			Charts: []Chart{
				{Kind: Outcomes, Slug: "crash_states-{test}-{axis}", Title: "Crash states {test}: {axis} outcomes"},
				{Kind: Bars, Slug: "crash_states-{test}-rate", Title: "Crash states {test}: states checked per minute",
					Bars: []Bar{{Metric: "states_per_minute"}}, CaseLabels: CaseAlways},
			},
			More: []string{"states", "states_possible", "states_checked", "states_mount_refused", "states_skipped", "log_entries", "log_bytes", "record_time", "replay_time", "snapshot_used_max", "resumed", "states_reused"},
		},
		Fields: []fields.Field{
			iterationsField(
				// One recording and its replay is the whole campaign; a
				// second one records the workload anew.
				1,
				"Campaigns per case: each records the workload once and checks its states."),
			{
				Name:     "log",
				Kind:     fields.Partition,
				Required: true,
				Doc: "The partition (without a filesystem block) that holds the write log, and at its end the " +
					"snapshot store; it is overwritten.",
			},
			{
				Name: "workload",
				Kind: fields.Enum, Sweep: true,
				Enum: crashWorkloads,
				// Seed 000 p.93: "Write files"; the fsync writer is
				// power_loss's log-like one, rename the pattern embedded
				// software updates its configuration with.
				Default: sweep("fsync", "rename"),
				Doc: "small_files, large_file, fsync: power_loss's writers, operations files (or 4KiB appends) each made durable; " +
					"rename: a config file of file_size rewritten operations times by write-to-temporary and rename; " +
					"churn: small files of file_size created and deleted; sqlite: operations SQLite transactions, each inserting a row " +
					"(the image's sqlite3, synchronous=FULL).",
			},
			{
				Name: "operations",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(100000),
				// Not in the seed: enough flushes for a hundred or so
				// states on ext4, small enough for a log of a few MiB.
				Default: int64(40),
				Doc:     "Operations of the workload: files, appends, config updates, creations or transactions.",
			},
			{
				Name: "file_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.GiB)),
				Default: 16 * units.KiB,
				Unit:    "bytes",
				Doc:     "Size of each file of small_files, churn and rename.",
			},
			{
				Name: "large_file_size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(units.KiB)), Max: fields.Bound(float64(16 * units.GiB)),
				Default: units.MiB,
				Unit:    "bytes",
				Doc:     "Size of each file of large_file.",
			},
			{
				Name: "fsync",
				Kind: fields.Enum,
				Enum: []string{"always", "none", "dir"},
				// "none" is the negative control of the data check: the
				// workload records data as durable that it never synced.
				// "dir" is the rename pattern of software that trusts the
				// filesystem to write a replacing file's data before the
				// rename (ext4's auto_da_alloc does; noauto_da_alloc does
				// not).
				Default: "always",
				Doc: "always: fsync the file (and its directory) before the data counts as durable; none: count it durable " +
					"without (an application's bug, which the data check must catch as LostSynced); dir (rename only): fsync " +
					"the directory after the rename but not the new file, trusting the filesystem to order the file's data " +
					"before the rename: a config file that is then neither the old nor the new version is Corrupt.",
			},
			{
				Name: "every_write",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(1000000),
				// Not in the seed; generic/482 checks at FUA marks only.
				Default: int64(0),
				Doc:     "Also check the state after every Nth data write between flushes (0: only flushes and FUA writes).",
			},
			{
				Name:    "at_marks",
				Kind:    fields.Bool,
				Default: false,
				Doc:     "Also check the state at each mark the workload sets when it counts data durable (after each fsync).",
			},
			{
				Name: "device",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"prefix", "reorder", "torn"},
				// No default, so that a test without it keeps its case
				// names; unset it is prefix, the kernel's own assumption
				// and the states of every campaign before device models.
				Doc: "How the device treats the writes it acknowledged when the power goes (prefix when not set). prefix: it persists them in the order " +
					"they completed (the states are the log's prefixes at the crash points); reorder: a volatile cache persists " +
					"any subset of the writes no flush made durable yet (every subset that drops up to drop of them, then samples " +
					"random ones per crash point); torn: one of those writes, or the crash point's own, is torn, a prefix, a suffix " +
					"or a random subset of its units of tear bytes persisted. Every model includes the prefix states.",
			},
			{
				Name: "flush",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"honoured", "ignored"},
				// Seed 001 slide 6: without barriers the disk reorders
				// cache-to-disk writes; a card that ignores flushes does
				// it with barriers too. No default, as for device.
				Doc: "honoured (when not set): a flush (and a FUA write) makes the writes before it durable; ignored: the device acknowledges " +
					"flushes and FUA without honouring them, so that everything since its last write-back may be lost or " +
					"reordered, as with nobarrier on a device with a volatile cache.",
			},
			{
				Name: "writeback",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(10000000),
				// Not in the seed: "never" is the worst a lying card does.
				Default: int64(0),
				Doc:     "With flush = \"ignored\": the device writes its cache back after every so many writes, which then are durable (0: never).",
			},
			{
				Name: "drop",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(4),
				// B3 (CrashMonkey): most crash-consistency bugs need
				// three operations or fewer; each write dropped is a
				// choose of the window, so the count grows fast.
				Default: int64(1),
				Doc:     "reorder: every subset of a crash point's unflushed writes that drops up to this many of them is a state (0: the prefix states only).",
			},
			{
				Name: "samples",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(100000),
				Default: int64(8),
				Doc: "Random states beyond the enumerated ones: per crash point for reorder (subsets that drop more than drop), " +
					"per torn write for torn (subsets of its units, for writes of 4 units or more), drawn from seed.",
			},
			{
				Name: "tear",
				Kind: fields.Size,
				Min:  fields.Bound(512), Max: fields.Bound(float64(units.MiB)),
				// The sector: the smallest unit a card writes; a flash
				// page (4KiB to 16KiB) is the other choice.
				Default: int64(512),
				Unit:    "bytes",
				Doc:     "torn: the unit a torn write keeps or loses whole: the sector (512B) or the flash page; a multiple of 512 bytes.",
			},
			{
				Name: "seed",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(1 << 40),
				Default: int64(1),
				Doc:     "Seed of the random states and of the budget's choice, reported with the results: the same log and seed give the same states.",
			},
			{
				Name: "max_states",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(10000000),
				Default: int64(10000),
				Doc: "Most states checked per campaign; beyond it the prefix states are kept (evenly spread, and at most half of the budget " +
					"under a device model that adds states) and the model's others chosen at random from seed; the rule is in the result's sampling, the rest counted as skipped.",
			},
			{
				Name: "max_time",
				Kind: fields.Duration,
				Min:  fields.Bound(1), Max: fields.Bound(7 * 86400),
				Default: (20 * time.Minute).String(),
				Unit:    "s",
				Doc:     "Longest time a campaign checks states; those left are counted as skipped.",
			},
			{
				Name: "snapshot_size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(units.MiB)), Max: fields.Bound(float64(64 * units.GiB)),
				// Not in the seed: a journal replay and a read-only check
				// write a few MiB at most.
				Default: 32 * units.MiB,
				Unit:    "bytes",
				Doc:     "Space at the end of the log partition for the snapshot each state is mounted and checked in.",
			},
			{
				Name: "replay_on",
				Kind: fields.Enum,
				Enum: []string{"auto", "ram", "device"},
				// Not in the seed: measured, a state costs half as much in
				// memory under TCG (docs/reliability.md).
				Default: "auto",
				Doc: "Where the states are replayed and checked: ram (a tmpfs with loop devices: the same bytes, read and " +
					"copied at memory speed, and nothing written to the flash per state), device (the partition itself, the " +
					"snapshot store on the log partition), or auto: ram when the log and the snapshot store take at most half " +
					"the memory available.",
			},
			{
				Name: "parallel",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(8),
				// Not in the seed: a state's mount and check use one CPU.
				Default: int64(0),
				Doc: "States checked at once, each by a worker with a replay of its own in memory (0: one per CPU of the target; " +
					"btrfs always one, since it mounts one filesystem of an id at a time).",
			},
			{
				Name:    "fsck",
				Kind:    fields.Bool,
				Default: true,
				Doc:     "Run the filesystem's checker (read-only) on each state after the mount check.",
			},
			{
				Name:    "drop_synced_write",
				Kind:    fields.Bool,
				Default: false,
				Doc:     "Negative control: replay without the write that holds the first durable file's first block, which the data check must catch.",
			},
			{
				Name: "interrupt_after",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(1000000),
				Default: int64(0),
				Doc: "Self-test of resuming: once per campaign, after this many states, ask the host's power switch " +
					"(the QEMU target, or the board's power-cycle command) to cut the power; the campaign must resume " +
					"after the next boot without checking a state twice. 0: never.",
			},
			timeoutField(time.Hour),
		},
		Check:      checkCrashStates,
		Partitions: crashLogSpace,
		Estimate:   crashEstimate,
	}
}

// crashPrograms: the sqlite workload runs the image's sqlite3, as
// sqlite_tps does, so that the SQLite the board ships is what is tested.
func crashPrograms(p Params) []string {
	if w, _ := stringParam(p, "workload"); w == "sqlite" {
		return []string{"sqlite3"}
	}
	return nil
}

func checkCrashStates(p Params) []Problem {
	var probs []Problem
	if on, _ := stringParam(p, "replay_on"); on == "device" {
		if n, _ := intParam(p, "parallel"); n > 1 {
			probs = append(probs, Problem{"parallel", "Parallel replay needs memory",
				fmt.Sprintf("parallel = %d needs a replay of the log per worker, in memory; with replay_on = \"device\" the partition holds the only one: drop parallel or use replay_on = \"auto\".", n)})
		}
	}
	if policy, _ := stringParam(p, "fsync"); policy == "dir" {
		for _, w := range listOf[string](p, "workload") {
			if w != "rename" {
				probs = append(probs, Problem{"fsync", "Policy for the rename workload only",
					fmt.Sprintf("fsync = \"dir\" leaves the rename workload's new file unsynced; the %s workload has no rename: run it in a test of its own.", w)})
				break
			}
		}
	}
	device, flush := caseWord(p, "device", "prefix"), caseWord(p, "flush", "honoured")
	if flush == "ignored" && device == "prefix" {
		probs = append(probs, Problem{"flush", "Ignored flushes need a device that loses or tears",
			"flush = \"ignored\" shows only in the writes such a device loses or tears: with device = \"prefix\" the states are those of an honest device; use device = \"reorder\" or \"torn\"."})
	}
	if tear, ok := intParam(p, "tear"); ok && tear%512 != 0 {
		probs = append(probs, Problem{"tear", "Tear unit not a multiple of the sector",
			fmt.Sprintf("tear is %d bytes; the write log counts 512-byte sectors, so a torn write keeps or loses whole multiples of 512 bytes.", tear)})
	}
	maxTime, ok1 := durationParam(p, "max_time")
	timeout, ok2 := durationParam(p, "timeout")
	if ok1 && ok2 && maxTime >= timeout {
		probs = append(probs, Problem{"max_time", "Budget not shorter than the timeout",
			fmt.Sprintf("max_time is %s but timeout is %s: the recording and the replay need time beside the checks; lower max_time or raise timeout.", maxTime, timeout)})
	}
	return probs
}

// ignoredCases matches the names of the cases whose device ignores
// flushes.
const ignoredCases = `(^|-)ignored(-|$)`

// caseWord is a sweep field's value in one case, or def when the test
// does not set it.
func caseWord(p Params, name, def string) string {
	if s, ok := stringParam(p, name); ok {
		return s
	}
	return def
}

// crashLogSpace is the least the log partition must hold for a case: the
// snapshot store, the log of the workload's data with a header sector per
// write, and the filesystem's creation, which grows with the partition
// under test (mke2fs zeroes a journal of up to 1GiB, mkfs.xfs its log).
// It is an estimate, so the runner still reports a log device that fills
// up.
func crashLogSpace(p Params, field string, on Placed) (int64, string) {
	if field != "log" {
		return 0, ""
	}
	ops, _ := intParam(p, "operations")
	file, _ := intParam(p, "file_size")
	large, _ := intParam(p, "large_file_size")
	snap, _ := intParam(p, "snapshot_size")
	workload, _ := stringParam(p, "workload")
	var data int64
	switch workload {
	case "large_file":
		data = ops * large
	case "fsync":
		data = ops * 4 * units.KiB
	case "sqlite":
		data = ops * 64 * units.KiB // a page or so per table, the journal, twice
	default:
		data = ops * max(file, 4*units.KiB)
	}
	// Twice the data covers the journal's copy of it (ext4 data=journal)
	// and the metadata.
	need := snap + 2*data + ops*8*units.KiB + mkfsLogSpace(on)
	return need, fmt.Sprintf("the %s workload's %d operations, the filesystem's creation on %s and the %s snapshot store",
		workload, ops, units.FormatSize(on.Size), units.FormatSize(snap))
}

// mkfsLogSpace estimates what making the filesystem on the partition
// writes through the log: 16MiB, and a sixteenth of the partition for the
// journal or log that mkfs zeroes (mke2fs wrote 18MB on 200MiB, with a
// 16MiB journal; the journal's share falls as partitions grow, up to
// mke2fs's 1GiB and mkfs.xfs's 2GiB).
func mkfsLogSpace(on Placed) int64 {
	return 16*units.MiB + min(on.Size/16, 2*units.GiB)
}
