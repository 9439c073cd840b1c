package filesystems

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// f2fs is built by mkfs.f2fs and filled by sload.f2fs (f2fs-tools 1.15.0).
// Checked on sparse files:
//
//   - Segments are 2MiB. A section is -s segments and the unit of garbage
//     collection, so ELC2015 sets it to the erase block and -z 1. Whether a
//     volume fits depends on -s in a non-monotonic way; f2fs_layout.go
//     repeats mkfs's arithmetic. The smallest default volume is 52MiB; a
//     16MiB file makes mkfs.f2fs die of SIGFPE.
//   - -s need not be a power of two: the kernel only checks that sections
//     divide the main area (sanity_check_raw_super).
//   - -l takes up to 512 bytes.
//   - mkfs.f2fs seeds the checkpoint version from the clock unless -r; with
//     -r, -U, -T, -R and sload.f2fs -T the image is bit-identical.
//   - fsck.f2fs without -f or -a leaves a clean image alone but prompts
//     before fixing a damaged one; --dry-run never writes.

func f2fsType() *Type {
	return &Type{
		Name: "f2fs", Tool: "mkfs.f2fs", Package: "f2fs-tools",
		Tools:   []string{"mkfs.f2fs", "sload.f2fs", "fsck.f2fs"},
		Checker: []string{"fsck.f2fs", "--dry-run"},
		Kernel: Kernel{Config: []string{"F2FS_FS"}, Module: "f2fs", MountModules: []string{"crc32_generic"},
			FeatureConfig: map[string]string{"compression": "F2FS_FS_COMPRESSION"}},
		Programs: append(hostPrograms("f2fs-tools", "BR2_PACKAGE_HOST_F2FS_TOOLS", "f2fs-tools-native", []string{"-V"}, "mkfs.f2fs", "sload.f2fs", "fsck.f2fs"),
			targetPrograms("f2fs-tools", "dump.f2fs")...),
		Target: TargetPackages{Buildroot: []string{"BR2_PACKAGE_F2FS_TOOLS"}, Yocto: []string{"f2fs-tools"},
			YoctoLayer: "meta-filesystems"},
		// Debian 12's kernel has no f2fs module for the host to mount.
		ReadBack:         ReadBack{Method: ReadInGuest},
		PartitionType:    "linux",
		Journal:          JournalNone,
		Populate:         PopulateTool,
		MinSize:          52 * units.MiB,
		MaxLabel:         512,
		SetsUUID:         true,
		BlockSizes:       []int64{f2fsBlockSize},
		DefaultBlockSize: f2fsBlockSize,
		Features: []string{
			"casefold", "compression", "encrypt", "extra_attr", "flexible_inline_xattr",
			"inode_checksum", "inode_crtime", "lost_found", "project_quota", "quota",
			"sb_checksum", "verity",
		},
		Tuning: []fields.Field{
			intField("segs_per_section", 1, 1<<16,
				"mkfs.f2fs -s: 2MiB segments per section, the unit of garbage collection"),
			intField("sections_per_zone", 1, 1<<16, "mkfs.f2fs -z: sections per zone"),
			{Name: "overprovision", Kind: fields.Float, Min: fields.Bound(0.01), Max: fields.Bound(99), Unit: "%",
				Doc: "mkfs.f2fs -o: overprovision percent; by default mkfs picks the ratio leaving most user space"},
			{Name: "cold_extensions", Kind: fields.String, List: true,
				Doc: "mkfs.f2fs -e: extensions stored in the cold log, at most 7 bytes each"},
			{Name: "hot_extensions", Kind: fields.String, List: true,
				Doc: "mkfs.f2fs -E: extensions stored in the hot log, at most 7 bytes each"},
			boolField("heap", "mkfs.f2fs -a: heap-based allocation (off by default in 1.15)"),
		},
		MountOptions:  append(f2fsMountOptions(), vfsOptions()...),
		Deterministic: true,
		Note: "Deterministic with -r (fixed checkpoint seed), -U, -T, -R 0:0 and sload.f2fs -T; " +
			"owners come from the staged tree (sload.f2fs -P).",
		resolve: resolveF2FS,
	}
}

func resolveF2FS(b *build) {
	s := b.s
	sps, spz := b.f2fsSections()
	ovp, _ := b.tuningFloat("overprovision")
	b.mkfs("-q", "-f", "-r", "-U", formatUUID(b.uuid), "-T", "{epoch}", "-R", "0:0")
	if s.Label != "" {
		b.arg("-l", s.Label)
	}
	b.arg("-s", itoa(sps), "-z", itoa(spz))
	if ovp != 0 {
		b.arg("-o", fmt.Sprint(ovp))
	}
	b.f2fsExtensions()
	if on, ok := b.tuningBool("heap"); ok {
		b.arg("-a", bit(on))
	}
	var feats []string
	for _, f := range b.features {
		if !f.enabled {
			b.problem("features", f.index, "f2fs features cannot be disabled",
				"mkfs.f2fs -O only enables features and none is on by default; remove %q", "^"+f.name)
			continue
		}
		feats = append(feats, f.name)
	}
	b.f2fsFeatureDeps(feats)
	if len(feats) > 0 {
		b.arg("-O", strings.Join(feats, ","))
	}
	b.extra()
	b.arg("{image}")
	if n := f2fsUsable(s.Size, sps, spz); n != s.Size {
		// mkfs.f2fs 1.15.0 with sections of more than one segment on a
		// volume that is not a whole number of zones writes a checkpoint
		// whose free segment count its own fsck rejects: give it the
		// whole zones, in 512-byte sectors (its trailing argument, which
		// it takes only below the device's size; a 4Kn device counts in
		// its own sectors and keeps the old layout).
		b.arg(itoa(n / 512))
	}
	if s.HasContents {
		b.r.Populate = []Command{{Argv: []string{"sload.f2fs", "-P", "-T", "{epoch}", "-f", "{root}", "{image}"}}}
	}
}

// f2fsSections derives -s and -z from the erase block (ELC2015: a section
// per erase block, -z 1) and checks that mkfs.f2fs can lay them out.
func (b *build) f2fsSections() (sps, spz int64) {
	s := b.s
	sps, spsSet := b.tuningInt("segs_per_section")
	field := "tuning.segs_per_section"
	if eb := s.Geometry.EraseBlock; eb > 0 && eb%512 == 0 && !spsSet {
		// A section of lcm(erase block, segment) starts and ends on
		// erase block boundaries even when the erase block is not a
		// multiple of 2MiB (1MiB, 3MiB, 6MiB TLC blocks).
		sps, spsSet, field = lcm(eb, f2fsSegmentSize)/f2fsSegmentSize, true, "geometry.erase_block"
		b.derive("segs_per_section", sps, fmt.Sprintf("lcm(erase_block %s, segment 2MiB) / 2MiB", size(eb)))
	}
	if !spsSet {
		sps, field = 1, "size"
	}
	spz, spzSet := b.tuningInt("sections_per_zone")
	if !spzSet {
		spz = 1
		if s.Geometry.EraseBlock > 0 {
			b.derive("sections_per_zone", spz, "ELC2015: -z 1, one section per zone")
		}
	}
	if s.Size >= b.t.MinSize {
		ovp, _ := b.tuningFloat("overprovision")
		b.f2fsFits(sps, spz, ovp, field)
	}
	return sps, spz
}

func (b *build) f2fsExtensions() {
	for _, e := range []struct{ name, flag string }{{"cold_extensions", "-e"}, {"hot_extensions", "-E"}} {
		exts, ok := b.tuningStrings(e.name)
		if !ok {
			continue
		}
		for _, x := range exts {
			if !f2fsExtensionOK(x) {
				b.problem("tuning."+e.name, -1, "bad f2fs extension",
					"mkfs.f2fs 1.15.0 drops extension %q: an extension is 1 to 7 bytes without commas or spaces", x)
			}
		}
		b.arg(e.flag, strings.Join(exts, ","))
	}
	b.f2fsExtensionCount()
}

// f2fsExtensionOK: F2FS_EXTENSION_LEN is 8 with the NUL, and mkfs warns
// and drops longer names; it splits the list at commas and spaces.
func f2fsExtensionOK(x string) bool {
	return x != "" && len(x) < 8 && !strings.ContainsAny(x, ", ")
}

// f2fsOwnCold and f2fsOwnHot are the extensions mkfs.f2fs 1.15.0 puts
// into the superblock before the spec's (mkfs/f2fs_format.c, outside
// Android): its own cold ones, the spec's cold ones, its own hot ones,
// the spec's hot ones, each of the spec's unless the list has it already.
// The list holds F2FS_MAX_EXTENSION (64), which leaves 24 for the spec's
// cold and hot extensions together. Tried on 64MiB: a 25th cold one makes
// mkfs fail ("Failed to write the check point pack": its own hot ones no
// longer fit), and hot ones past the 24 are left out without a word.
func f2fsOwnCold() []string {
	return []string{"mp", "wm", "og", "jp", "avi", "m4v", "m4p", "mkv", "mov", "webm",
		"wav", "m4a", "3gp", "opus", "flac", "gif", "png", "svg", "webp",
		"jar", "deb", "iso", "gz", "xz", "zst", "pdf", "pyc", "ttc", "ttf", "exe",
		"apk", "cnt", "exo", "odex", "vdex", "so"}
}

func f2fsOwnHot() []string { return []string{"db", "vmdk", "vdi", "qcow2"} }

const f2fsMaxExtensions = 64

// f2fsExtensionCount reports more cold and hot extensions than the
// superblock has room for beside mkfs.f2fs's own.
func (b *build) f2fsExtensionCount() {
	cold, _ := b.tuningStrings("cold_extensions")
	hot, _ := b.tuningStrings("hot_extensions")
	have := map[string]bool{}
	added := func(exts, own []string) (n int) {
		for _, x := range own {
			have[x] = true
		}
		for _, x := range exts {
			if f2fsExtensionOK(x) && !have[x] {
				have[x] = true
				n++
			}
		}
		return n
	}
	// mkfs.f2fs adds its hot ones after the spec's cold ones.
	ownCold, ownHot := f2fsOwnCold(), f2fsOwnHot()
	c := added(cold, ownCold)
	h := added(hot, ownHot)
	room := f2fsMaxExtensions - len(ownCold) - len(ownHot)
	why := fmt.Sprintf("mkfs.f2fs 1.15.0 fills %d of the superblock's %d extensions with its own (%d cold, %d hot), "+
		"which leaves %d for cold_extensions and hot_extensions together (those already on its list do not count)",
		len(ownCold)+len(ownHot), f2fsMaxExtensions, len(ownCold), len(ownHot), room)
	switch {
	case c > room:
		b.problem("tuning.cold_extensions", -1, "too many f2fs extensions",
			"%s; %d cold ones are new, and with more than %d mkfs.f2fs fails (\"Failed to write the check point pack\"). Remove %d",
			why, c, room, c-room)
	case c+h > room:
		b.problem("tuning.hot_extensions", -1, "too many f2fs extensions",
			"%s; %d cold and %d hot ones are new, and mkfs.f2fs silently leaves out the hot ones past %d. Remove %d",
			why, c, h, room, c+h-room)
	}
}

// f2fsUsable is the part of a volume of size bytes mkfs.f2fs is given:
// whole zones of spz sections of sps 2MiB segments when a section is
// more than one segment; all of it otherwise.
func f2fsUsable(size, sps, spz int64) int64 {
	zone := sps * spz * f2fsSegmentSize
	if sps*spz <= 1 || size%zone == 0 || size < zone {
		return size
	}
	return size / zone * zone
}

// f2fsFits reports a volume mkfs.f2fs 1.15.0 would refuse, with the largest
// section size that would fit.
func (b *build) f2fsFits(sps, spz int64, ovp float64, field string) {
	l := newF2FSLayout(f2fsUsable(b.s.Size, sps, spz), sps, spz, ovp)
	if l.failure == "" {
		return
	}
	best := int64(0)
	for try := sps - 1; try >= 1; try-- {
		if newF2FSLayout(f2fsUsable(b.s.Size, try, spz), try, spz, ovp).failure == "" {
			best = try
			break
		}
	}
	hint := "enlarge the partition"
	if best > 0 {
		hint = fmt.Sprintf("enlarge the partition or use at most %d segments per section (%s sections)", best, size(best*f2fsSegmentSize))
	}
	summary := "f2fs sections too large for the volume"
	if sps == 1 {
		summary = "f2fs partition too small"
	}
	b.problem(field, -1, summary,
		"mkfs.f2fs 1.15.0 with -s %d -z %d on %s would fail: %s (%d main segments, %d reserved); %s",
		sps, spz, size(b.s.Size), l.failure, l.mainSegments, l.reservedSegments, hint)
}

// f2fsFeatureDeps reports features that need extra_attr, which mkfs.f2fs
// 1.15.0 otherwise refuses.
func (b *build) f2fsFeatureDeps(feats []string) {
	if contains(feats, "extra_attr") {
		return
	}
	for _, f := range b.features {
		switch f.name {
		case "project_quota", "inode_checksum", "flexible_inline_xattr", "inode_crtime", "compression":
			if f.enabled {
				b.problem("features", f.index, f.name+" needs extra_attr",
					"mkfs.f2fs requires the extra_attr feature for %s; add \"extra_attr\"", f.name)
			}
		}
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// f2fsMountOptions come from Documentation/filesystems/f2fs.rst and
// f2fs_param_specs in fs/f2fs/super.c (Linux 6.x).
func f2fsMountOptions() []MountOption {
	var o []MountOption
	add := func(opts ...MountOption) { o = append(o, opts...) }
	add(enumOpt("background_gc", []string{"on", "off", "sync"}, "background garbage collection (default on)"))
	add(pair("gc_merge", "gc_merge", "nogc_merge", "let the background GC thread serve foreground GC")...)
	add(flag("disable_roll_forward", "skip roll-forward recovery"),
		flag("norecovery", "skip roll-forward recovery; needs ro"))
	add(pair("discard", "discard", "nodiscard", "issue discard when segments are cleaned")...)
	add(status(flag("heap", "heap allocation"), Deprecated, "f2fs.rst: heap and no_heap are deprecated; remove it"),
		status(flag("no_heap", "no heap allocation"), Deprecated, "f2fs.rst: heap and no_heap are deprecated; remove it"))
	add(pair("user_xattr", "user_xattr", "nouser_xattr", "user extended attributes (default)")...)
	add(pair("acl", "acl", "noacl", "POSIX ACLs (default)")...)
	add(MountOption{Name: "active_logs", Value: EnumValue, Enum: []string{"2", "4", "6"}, Doc: "number of active logs (default 6)"})
	add(flag("disable_ext_identify", "ignore the extension list set by mkfs"))
	add(pair("inline_xattr", "inline_xattr", "noinline_xattr", "inline extended attributes")...)
	add(uintOpt("inline_xattr_size", 0, 0, "inline xattr size (needs flexible_inline_xattr)"))
	add(pair("inline_data", "inline_data", "noinline_data", "small files in the inode (default)")...)
	add(pair("inline_dentry", "inline_dentry", "noinline_dentry", "small directories in the inode")...)
	add(pair("flush_merge", "flush_merge", "noflush_merge", "merge concurrent cache flushes")...)
	add(pair("barrier", "barrier", "nobarrier", "issue cache flushes (default)")...)
	add(flag("fastboot", "shorten mount time at the cost of performance"))
	add(pair("extent_cache", "extent_cache", "noextent_cache", "rb-tree extent cache (default)")...)
	add(flag("data_flush", "flush data before a checkpoint"))
	add(uintOpt("reserve_root", 0, 0, "4KiB blocks reserved for resuid/resgid"),
		uintOpt("resuid", 0, 0, "user that may use reserved blocks"),
		uintOpt("resgid", 0, 0, "group that may use reserved blocks"),
		uintOpt("fault_injection", 0, 0, "fault injection rate (debugging)"),
		uintOpt("fault_type", 0, 0, "fault injection types (debugging)"))
	add(enumOpt("mode", []string{"adaptive", "lfs", "fragment:segment", "fragment:block"}, "block allocation mode"))
	add(flag("usrquota", "user quota"), flag("grpquota", "group quota"), flag("prjquota", "project quota"),
		strOpt("usrjquota", "journaled user quota file"), strOpt("grpjquota", "journaled group quota file"),
		strOpt("prjjquota", "journaled project quota file"),
		enumOpt("jqfmt", []string{"vfsold", "vfsv0", "vfsv1"}, "journaled quota format"),
		flag("offusrjquota", "turn off journaled user quota"), flag("offgrpjquota", "turn off journaled group quota"),
		flag("offprjjquota", "turn off journaled project quota"), flag("quota", "user quota"), flag("noquota", "no quota"))
	add(enumOpt("alloc_mode", []string{"reuse", "default"}, "block allocation policy"),
		enumOpt("fsync_mode", []string{"posix", "strict", "nobarrier"}, "fsync policy (default posix)"))
	add(MountOption{Name: "test_dummy_encryption", Value: EnumValue, Enum: []string{"v1", "v2"}, ValueOptional: true,
		Doc: "fake encryption context for tests"}, flag("inlinecrypt", "blk-crypto inline encryption"))
	add(MountOption{Name: "checkpoint", Value: StringValue, check: f2fsCheckpoint,
		Doc: "enable, or disable[:N[%]] checkpointing"})
	add(pair("checkpoint_merge", "checkpoint_merge", "nocheckpoint_merge", "merge concurrent checkpoints in a thread")...)
	add(MountOption{Name: "compress_algorithm", Value: StringValue, check: f2fsCompress,
		Doc: "lzo, lz4[:3-16], zstd[:1-22] or lzo-rle"},
		uintOpt("compress_log_size", 2, 8, "compression cluster of 2^n 4KiB blocks"),
		strOpt("compress_extension", "extension to compress"), strOpt("nocompress_extension", "extension not to compress"),
		flag("compress_chksum", "checksum compressed clusters"),
		enumOpt("compress_mode", []string{"fs", "user"}, "who decides what is compressed"),
		flag("compress_cache", "cache compressed blocks"))
	add(flag("atgc", "age-threshold garbage collection"),
		enumOpt("discard_unit", []string{"block", "segment", "section"}, "granularity of discards (default block)"),
		enumOpt("memory", []string{"normal", "low"}, "memory mode"),
		flag("age_extent_cache", "age extent cache"),
		enumOpt("errors", []string{"panic", "continue", "remount-ro"}, "behaviour on critical errors (default continue)"),
		flag("nat_bits", "nat_bits feature"))
	return o
}

func f2fsCheckpoint(v string) error {
	if v == "enable" || v == "disable" {
		return nil
	}
	n, ok := strings.CutPrefix(v, "disable:")
	n = strings.TrimSuffix(n, "%")
	if ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return nil
	}
	return fmt.Errorf("%q is not enable, disable or disable:N[%%]", v)
}

func f2fsCompress(v string) error {
	alg, level, hasLevel := strings.Cut(v, ":")
	ranges := map[string][2]int{"lz4": {3, 16}, "zstd": {1, 22}, "lzo": {}, "lzo-rle": {}}
	r, ok := ranges[alg]
	switch {
	case !ok:
		return fmt.Errorf("%q is not lzo, lz4, zstd or lzo-rle", alg)
	case !hasLevel:
		return nil
	case r == [2]int{}:
		return fmt.Errorf("%s takes no level", alg)
	}
	var n int
	if _, err := fmt.Sscanf(level, "%d", &n); err != nil || n < r[0] || n > r[1] || fmt.Sprint(n) != level {
		return fmt.Errorf("%s level %q is outside %d..%d", alg, level, r[0], r[1])
	}
	return nil
}
