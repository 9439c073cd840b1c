package filesystems

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// btrfs is built by mkfs.btrfs (btrfs-progs 6.2). Checked on sparse files:
//
//   - The smallest device depends on the profiles: metadata/data
//     single/single 45MiB, dup/single (the default) 109MiB, single/dup
//     165MiB, dup/dup 229MiB, whatever the sector size; mixed block groups
//     need 8MiB plus 2048 nodes (16MiB with 4KiB nodes, 136MiB with 64KiB).
//   - -n takes 4KiB..64KiB and not less than -s. mkfs.btrfs 6.2 accepts a
//     node size that is not a power of two (12288) although the kernel
//     refuses to mount it (btrfs_validate_super), so fsbench rejects it.
//   - -s other than the page size may not mount on kernels before 5.16's
//     subpage support.
//   - -L accepts 255 bytes but stores only 254 (the 256-byte field keeps a
//     NUL and mkfs.btrfs 6.2 drops one more), so fsbench allows 254.
//   - mkfs.btrfs 6.2 draws the device UUID and the chunk tree UUID at random
//     and stamps the clock; only -U is fixed, so images differ.
//   - Nothing in mkfs.btrfs uses the erase block; ELC2015 only asks for the
//     leaf (node) size to equal the block size.

func btrfsType() *Type {
	var sizes []int64
	for s := int64(4096); s <= 64*units.KiB; s *= 2 {
		sizes = append(sizes, s)
	}
	profiles := []string{"single", "dup"}
	return &Type{
		Name: "btrfs", Tool: "mkfs.btrfs", Package: "btrfs-progs",
		Tools: []string{"mkfs.btrfs", "btrfs"},
		Loses: Losses{Devices: true,
			Why: "mkfs.btrfs 6.2 --rootdir stores device nodes without their major and minor numbers"},
		Checker: []string{"btrfs", "check", "--readonly"},
		Kernel:  Kernel{Config: []string{"BTRFS_FS"}, Module: "btrfs", MountModules: []string{"crc32c_generic"}},
		Programs: append(hostPrograms("btrfs-progs", "BR2_PACKAGE_HOST_BTRFS_PROGS", "btrfs-tools-native", []string{"--version"}, "mkfs.btrfs", "btrfs"),
			targetPrograms("btrfs-progs", "btrfsck", "btrfstune")...),
		Target:           TargetPackages{Buildroot: []string{"BR2_PACKAGE_BTRFS_PROGS"}, Yocto: []string{"btrfs-tools"}},
		ReadBack:         ReadBack{Method: ReadMount, MountOptions: "ro"},
		PartitionType:    "linux",
		Journal:          JournalNone,
		Populate:         PopulateMkfsFlag,
		MinSize:          16 * units.MiB,
		MaxLabel:         254,
		SetsUUID:         true,
		BlockSizes:       sizes,
		DefaultBlockSize: 4096,
		Features:         append(btrfsFSFeatures(), btrfsRuntimeFeatures()...),
		Tuning: []fields.Field{
			{Name: "nodesize", Kind: fields.Size, PowerOfTwo: true, Min: fields.Bound(4096), Max: fields.Bound(65536),
				Doc: "mkfs.btrfs -n: tree node size, a power of two from the block size to 64KiB"},
			enumField("metadata_profile", profiles, "mkfs.btrfs -m: metadata profile on one device (default dup)"),
			enumField("data_profile", profiles, "mkfs.btrfs -d: data profile on one device (default single)"),
			boolField("mixed", "mkfs.btrfs -M: data and metadata in the same block groups"),
			enumField("checksum", []string{"crc32c", "xxhash", "sha256", "blake2"}, "mkfs.btrfs --csum (default crc32c)"),
		},
		MountOptions:  append(btrfsMountOptions(), vfsOptions()...),
		Deterministic: false,
		Note: "Not deterministic: mkfs.btrfs 6.2 draws the device and chunk tree UUIDs at random and stamps the " +
			"current time; only the filesystem UUID (-U) is fixed.",
		resolve: resolveBtrfs,
	}
}

// btrfsFSFeatures are mkfs.btrfs 6.2's -O list-all, without zoned (no
// zoned eMMC or SD card exists).
func btrfsFSFeatures() []string {
	return []string{"extref", "mixed-bg", "no-holes", "raid1c34", "raid56", "skinny-metadata"}
}

// btrfsRuntimeFeatures are its -R list-all.
func btrfsRuntimeFeatures() []string { return []string{"free-space-tree", "quota"} }

func resolveBtrfs(b *build) {
	s := b.s
	node, nodeSet := b.tuningInt("nodesize")
	if !nodeSet {
		node = b.bs
		b.derive("nodesize", node, fmt.Sprintf("block_size %s (ELC2015: leaf size equal to the block size; mkfs.btrfs 6.2 alone would pick 16KiB)", size(b.bs)))
	}
	if node < b.bs {
		b.problem("tuning.nodesize", -1, "btrfs node smaller than a block",
			"mkfs.btrfs 6.2 refuses nodesize %s below the block size %s", size(node), size(b.bs))
	}
	if s.Geometry.EraseBlock > 0 {
		b.derive("erase_block", nil, "mkfs.btrfs 6.2 has no setting that uses the erase block")
	}
	b.mkfs("-q", "-f", "-U", formatUUID(b.uuid), "-s", itoa(b.bs), "-n", itoa(node))
	if s.Label != "" {
		b.arg("-L", s.Label)
	}
	b.btrfsProfiles(node)
	if c, ok := b.tuningString("checksum"); ok {
		b.arg("--csum", c)
	}
	var fs, rt []string
	for _, f := range b.features {
		if contains(btrfsRuntimeFeatures(), f.name) {
			rt = append(rt, f.String())
		} else {
			fs = append(fs, f.String())
		}
	}
	if len(fs) > 0 {
		b.arg("-O", strings.Join(fs, ","))
	}
	if len(rt) > 0 {
		b.arg("-R", strings.Join(rt, ","))
	}
	if s.HasContents {
		b.arg("--rootdir", "{root}")
	}
	b.extra()
	b.arg("{image}")
}

// btrfsProfiles adds -m, -d and -M and checks the size they need.
func (b *build) btrfsProfiles(node int64) {
	mixed, _ := b.tuningBool("mixed")
	if on, given := b.feature("mixed-bg"); given {
		mixed = on
	}
	meta, metaSet := b.tuningString("metadata_profile")
	data, dataSet := b.tuningString("data_profile")
	if !metaSet {
		meta = "dup"
	}
	if !dataSet {
		data = "single"
	}
	if mixed {
		b.btrfsMixed(node, meta, data, metaSet, dataSet)
		if !metaSet && !dataSet {
			meta, data = "single", "single"
		}
	}
	if min := btrfsMinSize(mixed, meta, data, node); b.s.Size >= b.t.MinSize && b.s.Size < min {
		b.problem("size", -1, "btrfs partition too small",
			"mkfs.btrfs 6.2 needs at least %s for metadata %s and data %s%s, the partition has %s",
			size(min), meta, data, unless(!mixed, " in mixed block groups"), size(b.s.Size))
	}
	if metaSet || mixed {
		b.arg("-m", meta)
	}
	if dataSet || mixed {
		b.arg("-d", data)
	}
	if m, ok := b.tuningBool("mixed"); ok && m {
		b.arg("-M")
	}
}

func (b *build) btrfsMixed(node int64, meta, data string, metaSet, dataSet bool) {
	if node != b.bs {
		b.problem("tuning.nodesize", -1, "btrfs mixed needs nodesize = block size",
			"mixed block groups need the node size to equal the block size %s, not %s", size(b.bs), size(node))
	}
	if (metaSet || dataSet) && meta != data {
		b.problem("tuning.data_profile", -1, "btrfs mixed needs one profile",
			"mixed block groups hold data and metadata together, so metadata_profile (%s) and data_profile (%s) must match", meta, data)
	}
}

// btrfsMinSize is the smallest device mkfs.btrfs 6.2 accepts, measured with
// every sector size from 4KiB to 64KiB.
func btrfsMinSize(mixed bool, meta, data string, node int64) int64 {
	if mixed {
		return 8*units.MiB + 2048*node
	}
	switch {
	case meta == "single" && data == "single":
		return 45 * units.MiB
	case meta == "dup" && data == "single":
		return 109 * units.MiB
	case meta == "single" && data == "dup":
		return 165 * units.MiB
	}
	return 229 * units.MiB
}

// btrfsMountOptions come from btrfs(5) of btrfs-progs 6.2 and
// fs/btrfs/super.c.
func btrfsMountOptions() []MountOption {
	var o []MountOption
	add := func(opts ...MountOption) { o = append(o, opts...) }
	add(pair("acl", "acl", "noacl", "POSIX ACLs (default)")...)
	add(pair("autodefrag", "autodefrag", "noautodefrag", "defragment small random writes")...)
	add(pair("barrier", "barrier", "nobarrier", "flush caches at commits (default); nobarrier risks corruption on power loss")...)
	add(flag("clear_cache", "rebuild the free space cache"),
		MountOption{Name: "commit", Value: UintValue, Min: 1, Max: 1<<32 - 1, Doc: "seconds between commits (default 30)"})
	for _, n := range []string{"compress", "compress-force"} {
		add(MountOption{Name: n, Value: StringValue, ValueOptional: true, Group: "compress", Sets: "zlib",
			check: btrfsCompress, Doc: "zlib[:1-9], lzo, zstd[:1-15] or no; bare means zlib"})
	}
	add(pair("datacow", "datacow", "nodatacow", "copy-on-write for data (default)")...)
	add(pair("datasum", "datasum", "nodatasum", "data checksums (default)")...)
	add(flag("degraded", "mount with missing devices"), strOpt("device", "device to scan"),
		MountOption{Name: "discard", Value: EnumValue, Enum: []string{"sync", "async"}, ValueOptional: true,
			Group: "discard", Sets: "sync", Doc: "discard freed extents; bare means sync"},
		grouped(flag("nodiscard", "no discard (default)"), "discard", "off"))
	add(pair("enospc_debug", "enospc_debug", "noenospc_debug", "verbose ENOSPC messages")...)
	add(enumOpt("fatal_errors", []string{"bug", "panic"}, "action on fatal errors (default bug)"))
	add(pair("flushoncommit", "flushoncommit", "noflushoncommit", "flush all data at each commit")...)
	add(status(flag("nologreplay", "skip log replay"), Deprecated, "replaced by rescue=nologreplay in Linux 5.9; needs ro"),
		MountOption{Name: "max_inline", Value: SizeValue, Doc: "largest file stored inline in metadata"},
		uintOpt("metadata_ratio", 0, 0, "allocate a metadata chunk every N data chunks"),
		flag("norecovery", "skip log replay and other writes; needs ro"),
		flag("rescan_uuid_tree", "rebuild the UUID tree"),
		MountOption{Name: "rescue", Value: StringValue, check: btrfsRescue,
			Doc: "usebackuproot, nologreplay, ignorebadroots, ignoredatacsums, all (colon-separated)"},
		flag("skip_balance", "do not resume an interrupted balance"),
		MountOption{Name: "space_cache", Value: EnumValue, Enum: []string{"v1", "v2"}, ValueOptional: true,
			Group: "space_cache", Sets: "default", Doc: "free space cache version"},
		grouped(flag("nospace_cache", "no free space cache"), "space_cache", "off"),
		grouped(flag("ssd", "SSD allocation (detected)"), "ssd", "ssd"),
		grouped(flag("ssd_spread", "aligned SSD allocation"), "ssd", "spread"),
		grouped(flag("nossd", "no SSD allocation"), "ssd", "off"),
		MountOption{Name: "nossd_spread", Conflicts: []string{"ssd_spread"}, Doc: "no ssd_spread"},
		strOpt("subvol", "subvolume path to mount"),
		uintOpt("subvolid", 0, 0, "subvolume id to mount"),
		uintOpt("thread_pool", 1, 1<<16, "worker threads"))
	add(pair("treelog", "treelog", "notreelog", "tree log for fsync (default)")...)
	add(status(flag("usebackuproot", "try backup tree roots"), Deprecated, "replaced by rescue=usebackuproot in Linux 5.9"),
		status(flag("recovery", "try backup tree roots"), Deprecated, "replaced by usebackuproot in Linux 4.6 and rescue=usebackuproot in 5.9"),
		flag("user_subvol_rm_allowed", "owners may delete their subvolumes"),
		status(flag("inode_cache", "inode number cache"), Ignored, "removed in Linux 5.11 and without effect"),
		status(flag("noinode_cache", "no inode number cache"), Ignored, "removed in Linux 5.11 and without effect"),
		status(flag("check_int", "integrity checker"), Removed, "Linux 6.7 removed the integrity checker"),
		status(flag("check_int_data", "integrity checker"), Removed, "Linux 6.7 removed the integrity checker"),
		status(uintOpt("check_int_print_mask", 0, 0, "integrity checker"), Removed, "Linux 6.7 removed the integrity checker"))
	return o
}

func btrfsCompress(v string) error {
	alg, level, hasLevel := strings.Cut(v, ":")
	limits := map[string]int{"zlib": 9, "zstd": 15, "lzo": 0, "no": 0}
	max, ok := limits[alg]
	switch {
	case !ok:
		return fmt.Errorf("%q is not zlib, lzo, zstd or no", alg)
	case !hasLevel:
		return nil
	case max == 0:
		return fmt.Errorf("%s takes no level", alg)
	}
	n, err := strconv.Atoi(level)
	if err != nil || n < 0 || n > max {
		return fmt.Errorf("%s level %q is outside 0..%d", alg, level, max)
	}
	return nil
}

func btrfsRescue(v string) error {
	for _, m := range strings.Split(v, ":") {
		switch m {
		case "usebackuproot", "nologreplay", "ignorebadroots", "ibadroots", "ignoredatacsums", "idatacsums", "all":
		default:
			return fmt.Errorf("%q is not a rescue mode", m)
		}
	}
	return nil
}
