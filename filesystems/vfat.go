package filesystems

import (
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// vfat is built by mkfs.fat 4.2 (dosfstools) and filled with mcopy (mtools
// 4.0.32). Checked on sparse files, with mkfs.fat's 512-byte sectors:
//
//   - The smallest image is 50KiB, or 49KiB with -F 32.
//   - -F 12 works up to 261695KiB, -F 16 from 8208KiB up to 4194004KiB; -F
//     32 has no practical upper limit and only warns below 65525 clusters.
//     With -s as well, mkfs.fat refuses cluster counts outside the FAT
//     type's range ("Not enough or too many clusters"). Without -F it
//     chooses FAT32 from 512MiB and then refuses fewer than 65525 clusters.
//   - -s takes 1 to 128 sectors per cluster, a power of two; -f 1 to 4;
//     -r 16 to 32768 root entries ("Bad number of root directory entries"
//     from 32769).
//   - -n takes 11 characters and refuses *?.,;:/\|+=<>[]".
//   - With --invariant and -i the image is bit-identical. mcopy -m keeps the
//     staged mtimes; FAT stores local time, so mcopy runs with TZ=UTC.
//   - mcopy copies a directory as itself, so the populate step names each
//     top-level entry ({root_entries}). FAT has no owners, modes or
//     symlinks: mcopy stores a symlink's target file.

func vfatType() *Type {
	var clusters []int64
	for c := int64(512); c <= 64*units.KiB; c *= 2 {
		clusters = append(clusters, c)
	}
	return &Type{
		Name: "vfat", Tool: "mkfs.vfat", Package: "dosfstools",
		Tools: []string{"mkfs.vfat", "mcopy", "fsck.vfat"},
		// mcopy would follow a symlink on the build host (an absolute one
		// leaks the host's file into the image) and block on a FIFO.
		Loses: Losses{Symlinks: true, Devices: true, FIFOs: true, Sockets: true,
			Why: "FAT holds only files and directories"},
		Names: vfatNames(),
		// mcopy stores no owner and no mode: it sets no attribute from
		// the permission bits either.
		NoOwners: true,
		Checker:  []string{"fsck.vfat", "-n"},
		// FAT mounts with code page 437 and iso8859-1 by default.
		Kernel: Kernel{Config: []string{"VFAT_FS", "NLS_CODEPAGE_437", "NLS_ISO8859_1"}, Module: "vfat",
			MountModules: []string{"nls_cp437", "nls_ascii", "nls_utf8"}},
		Programs: append(append(
			// dosfstools 4.2 has no version flag: mkfs.fat prints its
			// version at the end of its help, fsck.fat before it
			// checks (/dev/null, which it reads nothing from).
			withVersion(hostPrograms("dosfstools", "BR2_PACKAGE_HOST_DOSFSTOOLS", "dosfstools-native", []string{"--help"},
				"mkfs.vfat", "fsck.vfat"), "fsck.vfat", "-n", "/dev/null"),
			hostPrograms("mtools", "BR2_PACKAGE_HOST_MTOOLS", "mtools-native", []string{"--version"}, "mcopy")...),
			targetPrograms("dosfstools", "fsck.fat", "dosfsck", "mkfs.fat", "mkdosfs")...),
		Target: TargetPackages{Buildroot: []string{"BR2_PACKAGE_DOSFSTOOLS", "BR2_PACKAGE_DOSFSTOOLS_FSCK_FAT", "BR2_PACKAGE_DOSFSTOOLS_MKFS_FAT"},
			Yocto: []string{"dosfstools"}},
		ReadBack:         ReadBack{Method: ReadMtools},
		PartitionType:    "fat32", // the FAT/ESP-compatible basic data type firmware reads
		BootFiles:        true,
		Journal:          JournalNone,
		Populate:         PopulateMtools,
		MinSize:          49 * units.KiB, // FAT32; FAT12 needs 50KiB
		MaxLabel:         11,
		SetsUUID:         true,
		BlockSizes:       clusters,
		DefaultBlockSize: 0, // mkfs.fat picks the cluster size from the size
		Tuning: []fields.Field{
			enumField("fat_size", []string{"12", "16", "32"}, "mkfs.fat -F: FAT entry size; by default chosen from the size"),
			intField("fat_count", 1, 4, "mkfs.fat -f: number of FATs (default 2)"),
			intField("root_entries", 16, vfatMaxRootEntries, "mkfs.fat -r: root directory entries on FAT12/16 (default 512)"),
		},
		MountOptions:  append(vfatMountOptions(), vfsOptions()...),
		Deterministic: true,
		Note: "Deterministic with --invariant and a volume id derived from the UUID; mcopy -m keeps the staged mtimes " +
			"and runs with TZ=UTC. block_size is the cluster size.",
		resolve: resolveVFAT,
	}
}

// vfatNames are the names mcopy 4.0.32 cannot store, tried one by one
// with the populate step's command: it refuses control characters,
// "*<>?\|, the DOS devices below and two names that differ only in case
// (é and É too), and stores "a:b" as "b" and "ab." and "ab " as "ab"
// (the kernel's vfat drops trailing dots and spaces as well).
func vfatNames() NameRules {
	return NameRules{
		Forbidden: `"*:<>?\|`, NoControl: true, NonBMP: true, NoTrailing: ". ", FoldCase: true,
		Reserved: []string{"CON", "AUX", "PRN", "NUL", "COM1", "COM2", "COM3", "COM4", "LPT1", "LPT2", "LPT3", "LPT4"},
		Why: `FAT long names are UCS-2 without control characters, "*:<>?\| or a trailing dot or space, ` +
			"and mcopy refuses the DOS device names CON, AUX, PRN, NUL, COM1-4 and LPT1-4",
	}
}

// vfatMaxRootEntries is the largest -r mkfs.fat 4.2 takes.
const vfatMaxRootEntries = 32768

// fatLimits is the cluster-count range of a FAT type (Microsoft FAT
// specification, as mkfs.fat 4.2 applies it) and the device sizes mkfs.fat
// accepts for it without -s.
type fatLimits struct{ minClusters, maxClusters, minSize, maxSize int64 }

// vfatAuto32 is where mkfs.fat 4.2 switches to FAT32 by itself.
const vfatAuto32 = 512 * units.MiB

func fatRange(fat string) fatLimits {
	switch fat {
	case "12":
		return fatLimits{1, 4084, 50 * units.KiB, 261696*units.KiB - 1}
	case "16":
		return fatLimits{4085, 65524, 8208 * units.KiB, 4194005*units.KiB - 1}
	}
	return fatLimits{1, 0x0ffffff5, 49 * units.KiB, 1 << 62}
}

func resolveVFAT(b *build) {
	s := b.s
	volid := fatVolumeID(b.uuid)
	b.derive("volume_id", volid, "first 32 bits of SHA-256 of the filesystem UUID")
	b.vfatLabel()
	fat, fatSet := b.tuningString("fat_size")
	switch {
	case !fatSet && s.Size >= b.t.MinSize && s.Size < fatRange("12").minSize:
		b.problem("size", -1, "vfat partition too small",
			"below %s mkfs.fat 4.2 chooses FAT12 and fails; the partition has %s. Enlarge it or set fat_size = 32",
			size(fatRange("12").minSize), size(s.Size))
	case s.Size >= b.t.MinSize:
		b.vfatFits(fat, fatSet)
	}
	b.mkfs("--invariant", "-i", volid)
	if s.Label != "" {
		b.arg("-n", s.Label)
	}
	if fatSet {
		b.arg("-F", fat)
	}
	if s.BlockSize != 0 {
		b.arg("-s", itoa(b.bs/512))
	}
	if n, ok := b.tuningInt("fat_count"); ok {
		b.arg("-f", itoa(n))
	}
	if n, ok := b.tuningInt("root_entries"); ok {
		if fat == "32" {
			b.problem("tuning.root_entries", -1, "FAT32 has no fixed root directory",
				"root_entries sizes the FAT12/16 root directory; FAT32 keeps its root in clusters. Remove it")
		}
		b.arg("-r", itoa(n))
	}
	b.extra()
	b.arg("{image}")
	if s.HasContents {
		b.r.Populate = []Command{{
			Argv: []string{"mcopy", "-s", "-m", "-Q", "-i", "{image}", "{root_entries}", "::/"},
			// C.UTF-8: mcopy converts names through the locale, so the
			// host's LANG would otherwise change the image.
			Env: []string{"TZ=UTC", "LC_ALL=C.UTF-8", "MTOOLS_SKIP_CHECK=1"},
		}}
	}
}

func (b *build) vfatLabel() {
	l := b.s.Label
	for _, r := range l {
		if r > 0x7e || r < 0x20 || strings.ContainsRune(`*?.,;:/\|+=<>[]"`, r) {
			b.problem("label", -1, "bad character in FAT label",
				"mkfs.fat 4.2 refuses %q in label %q; use printable ASCII without *?.,;:/\\|+=<>[]\"", string(r), l)
			return
		}
	}
}

// vfatFits reports a FAT type and cluster size that mkfs.fat 4.2 would
// refuse for the partition. Without -F it picks FAT32 from 512MiB up and
// then, unlike with -F 32, insists on 65525 clusters; below, FAT12 if the
// clusters fit, else FAT16.
func (b *build) vfatFits(fat string, fatSet bool) {
	s := b.s
	if s.BlockSize == 0 {
		r := fatRange(fat)
		if fatSet && (s.Size < r.minSize || s.Size > r.maxSize) {
			b.problem("tuning.fat_size", -1, "FAT"+fat+" does not fit the partition",
				"mkfs.fat 4.2 makes FAT%s only from %s to %s; the partition has %s. Choose another fat_size or let mkfs.fat choose",
				fat, size(r.minSize), size(r.maxSize), size(s.Size))
		}
		return
	}
	r := fatRange(fat)
	switch {
	case fatSet:
	case s.Size >= vfatAuto32:
		fat, r = "32", fatRange("32")
		r.minClusters = 65525
	default:
		if _, hi := fatClusters(s.Size, b.bs, "12"); hi <= fatRange("12").maxClusters {
			return
		}
		fat, r = "16", fatRange("16")
	}
	lo, hi := fatClusters(s.Size, b.bs, fat)
	how := unless(fatSet, " (chosen by mkfs.fat for this size)")
	switch {
	case hi < r.minClusters || lo > r.maxClusters:
		b.problem("block_size", -1, "FAT"+fat+" cluster count out of range",
			"%s in %s clusters gives about %d to %d clusters, and FAT%s%s needs %d to %d (mkfs.fat: \"Not enough or too many clusters\"); choose another cluster size or fat_size",
			size(s.Size), size(b.bs), lo, hi, fat, how, r.minClusters, r.maxClusters)
	case lo < r.minClusters || hi > r.maxClusters:
		b.problem("block_size", -1, "FAT"+fat+" cluster count at its limit",
			"%s in %s clusters gives %d to %d clusters depending on mkfs.fat's alignment, on the edge of FAT%s's %d to %d; choose another cluster size",
			size(s.Size), size(b.bs), lo, hi, fat, r.minClusters, r.maxClusters)
	}
}

// fatClusters bounds the data clusters mkfs.fat 4.2 lays out: the upper
// bound ignores the FATs, the lower one takes the largest FATs and a
// cluster of alignment padding.
func fatClusters(devSize, cluster int64, fat string) (lo, hi int64) {
	sectors := devSize / 512
	spc := cluster / 512
	reserved, rootSecs, bits := int64(1), int64(512*32/512), int64(12)
	switch fat {
	case "16":
		bits = 16
	case "32":
		reserved, rootSecs, bits = 32, 0, 32
	}
	hi = (sectors - reserved - rootSecs) / spc
	fatSecs := ceilDiv((hi+2)*bits/8+1, 512)
	lo = (sectors - reserved - rootSecs - 2*fatSecs - spc) / spc
	return max(lo, 0), max(hi, 0)
}

// vfatMountOptions come from Documentation/filesystems/vfat.rst and
// fs/fat/inode.c.
func vfatMountOptions() []MountOption {
	boolOpt := func(name, doc string) MountOption {
		return MountOption{Name: name, Value: BoolValue, ValueOptional: true, Doc: doc}
	}
	octal := func(name, doc string) MountOption { return MountOption{Name: name, Value: OctalValue, Doc: doc} }
	return []MountOption{
		uintOpt("uid", 0, 0, "owner of all files"),
		uintOpt("gid", 0, 0, "group of all files"),
		octal("umask", "permission mask for files and directories"),
		octal("dmask", "permission mask for directories"),
		octal("fmask", "permission mask for files"),
		octal("allow_utime", "who may change timestamps (octal, e.g. 20)"),
		uintOpt("codepage", 0, 0, "codepage for short names"),
		strOpt("iocharset", "character set for file names"),
		boolOpt("utf8", "UTF-8 file names"),
		boolOpt("uni_xlate", "escape untranslatable Unicode"),
		boolOpt("nonumtail", "avoid ~1 tails in short names"),
		flag("usefree", "trust the FSINFO free cluster count"),
		flag("quiet", "fewer warnings"),
		enumOpt("check", []string{"s", "r", "n", "strict", "relaxed", "normal"}, "name case checking"),
		status(flag("nocase", "case insensitive names"), Deprecated, "vfat.rst: deprecated for vfat; use shortname=win95"),
		enumOpt("shortname", []string{"lower", "win95", "winnt", "mixed"}, "short name display and creation (default mixed)"),
		enumOpt("tz", []string{"UTC"}, "timestamps are UTC, not local time"),
		{Name: "time_offset", Value: IntValue, Min: -24 * 60, Max: 24 * 60, Doc: "minutes between FAT local time and UTC"},
		flag("showexec", "execute bit only for .EXE, .COM and .BAT"),
		flag("debug", "accepted, unused"),
		flag("sys_immutable", "ATTR_SYS means immutable"),
		flag("flush", "write to disk early"),
		flag("rodir", "honour ATTR_RO on directories"),
		enumOpt("errors", []string{"panic", "continue", "remount-ro"}, "behaviour on critical errors (default remount-ro)"),
		flag("discard", "discard freed clusters"),
		{Name: "nfs", Value: EnumValue, Enum: []string{"stale_rw", "nostale_ro"}, ValueOptional: true, Doc: "NFS export mode"},
		boolOpt("dos1xfloppy", "fall back to DOS 1.x floppy geometry"),
	}
}
