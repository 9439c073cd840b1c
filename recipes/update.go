package recipes

import (
	"fmt"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/wire/runplan"
)

// update asks whether an A/B update survives a power cut: the updater
// (RAUC from Debian, or the spec's own command) writes a new image into
// the inactive slot and flips U-Boot's environment while an application
// syncs data on the data partition, all through one dm-log-writes device
// that spans the slots, the environment's partition and the data
// partition, so that a state of the log is every medium at one instant.
// The runner replays every crash state (under the device models of
// crash_states) and judges each as the board would live it: the
// environment U-Boot would read (the valid copy with the higher flags),
// the slot RAUC's boot logic would pick (BOOT_ORDER, BOOT_<slot>_LEFT),
// that slot's bytes against the old and the new image, and the data
// partition mounted, checked and read back. The host makes the bundle
// (imagegen), signed with a key made for the test.

func newUpdate() *Recipe {
	return &Recipe{
		Name:    "update",
		Schema:  1,
		Summary: "Runs an A/B update (RAUC, U-Boot environment) through dm-log-writes and judges every state a power cut could leave: the slot U-Boot would boot, its bytes, the data partition.",
		Source:  Citation{ELC2015, "p.92-95 \"Corruption of the filesystem\", checked at every flush of an A/B update of the slots, the bootloader's environment and the data partition"},
		// `on` is the data partition: an application's filesystem, which
		// the update must not harm.
		Target: OnDevice,
		// A campaign resumes after a reboot or a power cut, as
		// crash_states' does.
		Reboots:     true,
		Destructive: true,
		Count:       "iterations",
		Needs: Needs{Checker: true, Mkfs: true, UpdateBundle: true, CasePrograms: updatePrograms, Kernel: []KernelNeed{{
			Why:    "update records the slots, the environment and the data partition with one dm-log-writes target over their concatenation, and checks each state in a dm-snapshot.",
			Config: []string{"MD", "BLK_DEV_DM", "DM_LOG_WRITES", "DM_SNAPSHOT"}, Modules: []string{"dm_log_writes", "dm_snapshot"},
		}, {
			Why:    "update's RAUC mounts its bundle, a squashfs image, on a loop device.",
			Config: []string{"BLK_DEV_LOOP", "SQUASHFS"}, Modules: []string{"loop", "squashfs"},
		}}},
		Report: Report{
			Criteria: []Criterion{{Name: "update robustness", Outcomes: true, Weight: 3, Share: "boot"}},
			Outcomes: []Axis{
				{"boot", UpdateBootClasses, 2},
				{"consistency", []string{"Clean", "AutoFix", "Errors", "Fsck", "Fatal"}, 2},
				{"data", dataClasses, 2},
			},
			OutcomeCounts: true,
			Charts:        []Chart{{Kind: Outcomes, Slug: "update-{test}-{axis}", Title: "Update {test}: {axis} outcomes"}},
			More: []string{"states", "states_possible", "states_checked", "states_skipped", "env_copy_invalid", "env_none_valid",
				"log_entries", "log_bytes", "record_time", "update_time", "replay_time"},
		},
		Fields:         updateFields(),
		Check:          checkUpdate,
		Partitions:     updateSpace,
		FromPartitions: updateFromPartitions,
	}
}

// UpdateBootClasses are the update's boot outcomes, from the best:
// the board boots the slot it booted before, whole; the updated slot,
// whole; it comes up only by a fallback: on U-Boot's default
// environment, no copy of its own being valid, or on the other slot
// once the boots of a slot that is neither image (a mixed slot) have
// spent its attempts; or no slot comes up: none has attempts left but
// mixed ones, or the bootloader boots a mixed slot forever.
var UpdateBootClasses = []string{"OldSlot", "NewSlot", "Fallback", "Bricked"}

func updateFields() []fields.Field {
	return concat([]fields.Field{
		iterationsField(1, "Campaigns per case: each records the update once and checks its states."),
		fsPartField("slot_a", "Slot A (U-Boot's bootname A): it holds the old image, which the board runs while it updates. "+
			"With a filesystem block, the images are that filesystem at the slot's size (its contents, or the root partition's contents and userland, "+
			"with "+runplan.UpdateSlotRelease+" naming the version); without one, sectors that name their image."),
		fsPartField("slot_b", "Slot B (bootname B), the inactive slot the update writes; it starts empty. A filesystem block, if any, is slot A's type."),
		fsPartField("env", "The partition that holds U-Boot's environment: raw copies at env_offset, or with env_file a file of its filesystem (a vfat or ext2/3/4 filesystem block)."),
		partField("log", "The partition (without a filesystem block) that holds the write log, and at its end the snapshot store; it is overwritten."),
		{
			Name: "env_offset", Kind: fields.Size,
			Min: fields.Bound(0), Max: fields.Bound(float64(units.GiB)),
			Default: int64(0), Unit: "bytes",
			Doc: "Where the environment's first copy starts in env (CONFIG_ENV_OFFSET, relative to the partition); the redundant copy follows it.",
		},
		{
			Name: "env_size", Kind: fields.Size,
			Min: fields.Bound(1024), Max: fields.Bound(float64(units.MiB)),
			// U-Boot's CONFIG_ENV_SIZE on most boards.
			Default: int64(0x4000), Unit: "bytes",
			Doc: "Size of one copy of the environment (CONFIG_ENV_SIZE).",
		},
		{
			Name: "env_redundant", Kind: fields.Bool,
			Default: true,
			Doc:     "Two copies with a flags byte (CONFIG_ENV_REDUNDANT, CONFIG_ENV_OFFSET_REDUND right after the first); false: one copy, which a torn write leaves to U-Boot's default environment.",
		},
		{
			Name: "env_file", Kind: fields.String, Default: "",
			Doc: "The environment as a file of env's filesystem, as U-Boot's CONFIG_ENV_IS_IN_FAT (or _EXT4) keeps it: its path from the filesystem's root " +
				"(CONFIG_ENV_FAT_FILE, \"uboot.env\" on most boards). \"\": raw copies at env_offset.",
		},
		{
			Name: "env_file_redund", Kind: fields.String, Default: "uboot-redund.env",
			Doc: "With env_file and env_redundant: the file of the second copy (CONFIG_ENV_FAT_FILE_REDUND).",
		},
		{
			Name: "bootloader_decrements", Kind: fields.Bool,
			Default: true,
			Doc: "The bootloader spends one of a slot's attempts at each boot (RAUC's boot script: setexpr BOOT_<slot>_LEFT - 1, saveenv), so that a slot whose boots fail " +
				"gives way to the next of BOOT_ORDER. Negative control: false, a bootloader that never spends one, boots a failing slot forever (Bricked where a counting one falls back).",
		},
		{
			Name: "updater", Kind: fields.Enum,
			Enum:    []string{"rauc", "swupdate", "custom"},
			Default: "rauc",
			Doc: "rauc: Debian's RAUC installs the bundle the host made (raw slots, its U-Boot backend through libubootenv's fw_setenv); " +
				"swupdate: Debian's SWUpdate installs the signed image the host made (its raw handler into slot B, then its bootenv section, " +
				"through libubootenv, with its own update markers); custom: command does the update.",
		},
		{
			Name: "command", Kind: fields.String, List: true,
			Doc: "updater = \"custom\": the program and its arguments, run without a shell of fsbench's; it finds the new image in $FSBENCH_IMAGE, " +
				"the bundle in $FSBENCH_BUNDLE, the slots' devices in $FSBENCH_SLOT_A and $FSBENCH_SLOT_B, the environment's in $FSBENCH_ENV, and fw_setenv's configuration in /etc/fw_env.config.",
		},
		{
			Name: "image_size", Kind: fields.Size,
			Min: fields.Bound(float64(64 * units.KiB)), Max: fields.Bound(float64(4 * units.GiB)),
			// Small enough to log and replay in minutes under TCG.
			Default: 8 * units.MiB, Unit: "bytes",
			Doc: "Size of the old and the new image, which the host makes for the test (a filesystem's worth of bytes that differ between the two). " +
				"When slot_a's partition has a filesystem, the images are that filesystem and this is the slot's size.",
		},
		{
			Name: "operations", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(100000),
			Default: int64(8),
			Doc:     "The application's 4KiB appends to a file of the data partition, each fsynced, while the update runs.",
		},
		{
			Name: "boot_sample", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(1000),
			Default: int64(4),
			Doc: "States judged OldSlot or NewSlot that the QEMU target boots for real through U-Boot after the run, evenly spread, beside every state judged " +
				"Fallback or Bricked and every state with an environment copy whose CRC fails (one boot per distinct environment and slots); each must land where it was judged.",
		},
		{
			Name: "max_boots", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(100000),
			Default: int64(24),
			Doc: "Most states booted for real per case (0: every listed one): beyond it the first state of each class and the rest evenly spread, " +
				"the number booted and listed in the result's real_boot.",
		},
	}, updateModelFields(), []fields.Field{
		{
			Name: "max_states", Kind: fields.Int,
			Min: fields.Bound(1), Max: fields.Bound(10000000),
			Default: int64(2000),
			Doc:     "Most states checked per campaign; beyond it the prefix states are kept and the model's others chosen at random from seed, the rest counted as skipped.",
		},
		{
			Name: "max_time", Kind: fields.Duration,
			Min: fields.Bound(1), Max: fields.Bound(7 * 86400),
			Default: (20 * time.Minute).String(), Unit: "s",
			Doc: "Longest time a campaign checks states; those left are counted as skipped.",
		},
		{
			Name: "snapshot_size", Kind: fields.Size,
			Min: fields.Bound(float64(units.MiB)), Max: fields.Bound(float64(64 * units.GiB)),
			Default: 32 * units.MiB, Unit: "bytes",
			Doc: "Space at the end of the log partition for the snapshot each state is judged in; unless set, at least image_size and 16MiB.",
		},
		{
			Name: "fsck", Kind: fields.Bool,
			Default: true,
			Doc:     "Run the data partition's checker (read-only) on each state after its mount.",
		},
		{
			Name: "every_write", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(1000000), Default: int64(0),
			Doc: "Also judge the state after every Nth write between flushes (0: only flushes and FUA writes).",
		},
		{
			Name: "at_marks", Kind: fields.Bool, Default: false,
			Doc: "Also judge the state at each mark the application sets when it counts an append durable.",
		},
		{
			Name: "replay_on", Kind: fields.Enum, Enum: []string{"auto", "ram", "device"}, Default: "auto",
			Doc: "Where the states are replayed, as crash_states': ram, device (the partitions themselves), or auto.",
		},
		{
			Name: "parallel", Kind: fields.Int, Min: fields.Bound(0), Max: fields.Bound(8), Default: int64(0),
			Doc: "States whose data partition is checked at once, as crash_states' (0: one per CPU of the target).",
		},
		{
			Name: "drop_synced_write", Kind: fields.Bool, Default: false,
			Doc: "Negative control: replay without the write that holds the application's first durable append, which the data check must catch.",
		},
		{
			Name: "interrupt_after", Kind: fields.Int, Min: fields.Bound(0), Max: fields.Bound(1000000), Default: int64(0),
			Doc: "Self-test of resuming, as crash_states': after this many states, ask the host's power switch for a cut; the campaign resumes after the next boot. 0: never.",
		},
		timeoutField(time.Hour),
	})
}

// updateModelFields are crash_states' device model, with its words.
func updateModelFields() []fields.Field {
	return []fields.Field{
		{
			Name: "device", Kind: fields.Enum,
			Enum: []string{"prefix", "reorder", "torn"}, Default: "prefix",
			Doc: "How the device treats the writes it acknowledged when the power goes, as in crash_states: prefix (in the order they completed), " +
				"reorder (any subset of the unflushed writes), torn (one of them torn in units of tear bytes).",
		},
		{
			Name: "flush", Kind: fields.Enum,
			Enum: []string{"honoured", "ignored"}, Default: "honoured",
			Doc: "honoured: a flush (and a FUA write) makes the writes before it durable; ignored: the device acknowledges them without honouring them.",
		},
		{
			Name: "writeback", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(10000000), Default: int64(0),
			Doc: "With flush = \"ignored\": the device writes its cache back after every so many writes (0: never).",
		},
		{
			Name: "drop", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(4), Default: int64(1),
			Doc: "reorder: every subset of a crash point's unflushed writes that drops up to this many of them is a state.",
		},
		{
			Name: "samples", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(100000), Default: int64(8),
			Doc: "Random states beyond the enumerated ones, per crash point (reorder) or per torn write (torn), drawn from seed.",
		},
		{
			Name: "tear", Kind: fields.Size,
			Min: fields.Bound(512), Max: fields.Bound(float64(units.MiB)), Default: int64(512), Unit: "bytes",
			Doc: "torn: the unit a torn write keeps or loses whole, a multiple of 512 bytes.",
		},
		{
			Name: "seed", Kind: fields.Int,
			Min: fields.Bound(0), Max: fields.Bound(1 << 40), Default: int64(1),
			Doc: "Seed of the random states and of the budget's choice.",
		},
	}
}

// fsPartField is a partition that may have a filesystem block, which
// the test writes whole: a slot's (the type of the update's images), the
// environment's (a file's home).
func fsPartField(name, doc string) fields.Field {
	f := partField(name, doc)
	f.Formatted = true
	return f
}

func partField(name, doc string) fields.Field {
	return fields.Field{Name: name, Kind: fields.Partition, Required: true, Doc: doc}
}

// updatePrograms: RAUC's client and service and the D-Bus daemon
// between them, or SWUpdate, and libubootenv's tools, which both run (as
// a library or as programs) and a custom command may.
func updatePrograms(p Params) []string {
	progs := []string{"fw_setenv", "fw_printenv"}
	switch u, _ := stringParam(p, "updater"); u {
	case "rauc", "":
		progs = append(progs, "rauc", "dbus-daemon")
	case "swupdate":
		progs = append(progs, "swupdate")
	}
	return progs
}

func checkUpdate(p Params) []Problem {
	var probs []Problem
	updater, _ := stringParam(p, "updater")
	cmd := stringList(p, "command")
	switch {
	case updater == "custom" && len(cmd) == 0:
		probs = append(probs, Problem{"updater", "Custom updater without a command",
			"updater = \"custom\" runs command, which the test does not set: give the program and its arguments."})
	case updater != "custom" && len(cmd) > 0:
		probs = append(probs, Problem{"command", "Command beside " + updater,
			fmt.Sprintf("command is the custom updater's; with updater = %q it would not run: drop it or set updater = \"custom\".", updater)})
	}
	seen := map[string]string{}
	for _, f := range []string{"slot_a", "slot_b", "env", "log"} {
		name, ok := stringParam(p, f)
		if !ok {
			continue
		}
		if other, dup := seen[name]; dup {
			probs = append(probs, Problem{f, "Partition used twice",
				fmt.Sprintf("%s and %s both name partition %q; the update writes each, so give each its own.", other, f, name)})
		}
		seen[name] = f
	}
	if device, _ := stringParam(p, "device"); device == "prefix" {
		if flush, _ := stringParam(p, "flush"); flush == "ignored" {
			probs = append(probs, Problem{"flush", "Ignored flushes need a device that loses or tears",
				"flush = \"ignored\" shows only in the writes such a device loses or tears: use device = \"reorder\" or \"torn\"."})
		}
	}
	for _, f := range []string{"env_file", "env_file_redund"} {
		if v, _ := stringParam(p, f); v != "" && !runplan.PlainEnvPath(v) {
			probs = append(probs, Problem{f, "Invalid environment file name",
				fmt.Sprintf("%q: give a path from the filesystem's root of letters, digits, '.', '_', '-' and '/', without \"..\" or a leading '/'.", v)})
		}
	}
	if a, _ := stringParam(p, "env_file"); a != "" && boolParam(p, "env_redundant") {
		if b, _ := stringParam(p, "env_file_redund"); a == b {
			probs = append(probs, Problem{"env_file_redund", "One file for both copies", "env_file and env_file_redund name the same file; the redundant copy needs its own."})
		}
	}
	if tear, ok := intParam(p, "tear"); ok && tear%512 != 0 {
		probs = append(probs, Problem{"tear", "Tear unit not a multiple of the sector",
			fmt.Sprintf("tear is %d bytes; the write log counts 512-byte sectors.", tear)})
	}
	maxTime, ok1 := durationParam(p, "max_time")
	timeout, ok2 := durationParam(p, "timeout")
	if ok1 && ok2 && maxTime >= timeout {
		probs = append(probs, Problem{"max_time", "Budget not shorter than the timeout",
			fmt.Sprintf("max_time is %s but timeout is %s: the recording and the replay need time beside the checks; lower max_time or raise timeout.", maxTime, timeout)})
	}
	return probs
}

// updateSpace is what each partition field must hold: a slot the image,
// env its copies, and the log the recording (the old image into slot A
// and the new one into slot B, the data partition's creation and the
// application's appends, a header sector per write) with the snapshot
// store.
func updateSpace(p Params, field string, on Placed) (int64, string) {
	img, _ := intParam(p, "image_size")
	switch field {
	case "slot_a", "slot_b":
		return img, "the " + units.FormatSize(img) + " image (image_size)"
	case "env":
		if file, _ := stringParam(p, "env_file"); file != "" {
			return 0, ""
		}
		off, _ := intParam(p, "env_offset")
		size, _ := intParam(p, "env_size")
		copies := int64(1)
		if boolParam(p, "env_redundant") {
			copies = 2
		}
		return off + copies*size, fmt.Sprintf("%d copies of %s at offset %d", copies, units.FormatSize(size), off)
	case "log":
		ops, _ := intParam(p, "operations")
		snap, _ := intParam(p, "snapshot_size")
		data := 2*img + img/32 + ops*8*units.KiB + 2*units.MiB
		return snap + data + mkfsLogSpace(on), fmt.Sprintf("the recording of two %s images, the data partition's creation on %s and the %s snapshot store",
			units.FormatSize(img), units.FormatSize(on.Size), units.FormatSize(snap))
	}
	return 0, ""
}

// updateFromPartitions: when slot A's partition has a filesystem, the images
// are that filesystem, built as the slot's partition is (imagegen), so
// they are the slot's size; slot B, if it has one, is of the same type.
// The snapshot store holds what a state writes beyond its prefix, up to
// a whole image when the updater writes it without a flush, beside the
// data partition's mount: unless the spec sets it, it is at least the
// image's size and 16MiB.
func updateFromPartitions(p Params, written func(string) bool, parts map[string]Placed) []Problem {
	probs := slotImageSize(p, written, parts["slot_a"], parts["slot_b"])
	probs = append(probs, envFile(p, written, parts["env"])...)
	img, _ := intParam(p, "image_size")
	snap, _ := intParam(p, "snapshot_size")
	switch {
	case !written("snapshot_size"):
		p["snapshot_size"] = max(snap, img+16*units.MiB)
	case snap < img:
		probs = append(probs, Problem{"snapshot_size", "Snapshot store smaller than the image",
			fmt.Sprintf("snapshot_size is %s and the images %s: a state's writes beyond its prefix can be a whole image; make it %s or more.",
				units.FormatSize(snap), units.FormatSize(img), units.FormatSize(img+16*units.MiB))})
	}
	return probs
}

// envFile checks the environment's place: a file needs a filesystem
// U-Boot can keep it in, raw copies a partition without one.
func envFile(p Params, written func(string) bool, env Placed) []Problem {
	file, _ := stringParam(p, "env_file")
	switch {
	case file == "" && env.Filesystem != "":
		return []Problem{{"env", "Raw environment on a filesystem",
			fmt.Sprintf("env names a partition with a %s filesystem and env_file is not set, so the copies would be written raw over it: set env_file to the environment's file (CONFIG_ENV_FAT_FILE), or give env a partition without a filesystem.", env.Filesystem)}}
	case file == "":
		return nil
	case env.Filesystem == "":
		return []Problem{{"env_file", "Environment file without a filesystem",
			"env_file puts the environment in a file, and env names a partition without a filesystem block: give it a vfat or ext4 filesystem, as U-Boot's CONFIG_ENV_IS_IN_FAT or _EXT4 reads, or drop env_file for raw copies."}}
	case env.Filesystem != "vfat" && !strings.HasPrefix(env.Filesystem, "ext"):
		return []Problem{{"env", "Environment file on a filesystem U-Boot does not keep it in",
			fmt.Sprintf("U-Boot keeps its environment in a file of a FAT (CONFIG_ENV_IS_IN_FAT) or ext4 (CONFIG_ENV_IS_IN_EXT4) filesystem, not %s.", env.Filesystem)}}
	case written("env_offset"):
		return []Problem{{"env_offset", "Environment offset beside a file",
			"env_offset places raw copies; with env_file the environment is a file, from its start: drop env_offset."}}
	}
	return nil
}

// slotImageSize sets image_size to slot A's size when the slot has a
// filesystem, the images' type.
func slotImageSize(p Params, written func(string) bool, a, b Placed) []Problem {
	if a.Filesystem == "" {
		if b.Filesystem != "" {
			return []Problem{{"slot_b", "Slot B with a filesystem, slot A without",
				fmt.Sprintf("slot_b's partition is %s but slot_a's has no filesystem: the images are slot A's filesystem, so give slot A the filesystem block, or neither.", b.Filesystem)}}
		}
		return nil
	}
	if b.Filesystem != "" && b.Filesystem != a.Filesystem {
		return []Problem{{"slot_b", "Slots of two filesystem types",
			fmt.Sprintf("slot_a's partition is %s and slot_b's %s: the update writes slot A's image into slot B, so give both the same type.", a.Filesystem, b.Filesystem)}}
	}
	if size, _ := intParam(p, "image_size"); written("image_size") && size != a.Size {
		return []Problem{{"image_size", "Image size beside a slot filesystem",
			fmt.Sprintf("The images are slot_a's %s filesystem, built at the slot's size (%s), not %s: drop image_size or make the slot that size.",
				a.Filesystem, units.FormatSize(a.Size), units.FormatSize(size))}}
	}
	p["image_size"] = a.Size
	return nil
}
