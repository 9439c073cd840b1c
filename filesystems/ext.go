package filesystems

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// The ext family is built by mke2fs (e2fsprogs 1.47.0). Its limits, checked
// on sparse files:
//
//   - -E stride is stored in the 16-bit s_raid_stride; mke2fs 1.47.0 accepts
//     larger values and silently truncates them (65536 became 0, 70000 became
//     4464), so fsbench rejects anything above 65535. stripe_width is 32-bit.
//   - A journal needs at least 2048 filesystem blocks; below that mke2fs
//     prints "Filesystem too small for a journal" and still exits 0 with no
//     journal, which would make an "ext3" without one.
//   - -L keeps 16 bytes and truncates longer labels with a warning.
//   - -I takes a power of two from 128 up to the block size; -i takes 1024
//     to 67108864; -m takes 0 to 50 percent.
//   - mke2fs 1.47.0 ignores SOURCE_DATE_EPOCH but takes its clock from
//     E2FSPROGS_FAKE_TIME. With -U and -E hash_seed= the output is then
//     bit-identical, except that -d copies each file's st_ctime, which no
//     stager can set; the debugfs step rewrites all four timestamps.
//   - The smallest filesystem fsbench allows is max(1MiB, 64 blocks), which
//     works for every block size (4KiB blocks work from 60).
//   - Defaults come from /etc/mke2fs.conf. Debian 12's "small" usage class
//     picks 1KiB blocks below 512MiB, so fsbench always passes -b.

const (
	extMaxStride    = 65535 // s_raid_stride is __le16
	extMaxStripe    = 1<<32 - 1
	extJournalMin   = 2048     // ext2fs_default_journal_size: no journal below
	extJournalBlkLo = 1024     // mke2fs: journal between 1024 and
	extJournalBlkHi = 10240000 // 10,240,000 blocks
)

func extType(name string, journal JournalSupport) *Type {
	t := &Type{
		Name: name, Tool: "mke2fs", Package: "e2fsprogs",
		Tools:   []string{"mke2fs", "debugfs", "e2fsck"},
		Checker: []string{"e2fsck", "-fn"},
		// ext2 and ext3 are mounted by the ext4 driver, which registers
		// ext3 itself and ext2 with EXT4_USE_FOR_EXT2.
		Kernel: Kernel{Config: []string{"EXT4_FS"}, Bools: extBools(name), Module: "ext4",
			MountModules: []string{"crc32c_generic"}},
		Programs: withData(append(
			hostPrograms("e2fsprogs", "BR2_PACKAGE_HOST_E2FSPROGS", "e2fsprogs-native", []string{"-V"}, "mke2fs", "debugfs", "e2fsck"),
			targetPrograms("e2fsprogs", "fsck.ext2", "fsck.ext3", "fsck.ext4", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4",
				"tune2fs", "dumpe2fs", "resize2fs")...),
			// mke2fs takes the features and sizes of each ext type from
			// mke2fs.conf and, without it, makes filesystems unlike the
			// host's.
			[]string{"etc/mke2fs.conf"}, "mke2fs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4"),
		Target: TargetPackages{Buildroot: []string{"BR2_PACKAGE_E2FSPROGS"},
			Yocto: []string{"e2fsprogs-e2fsck", "e2fsprogs-mke2fs"}},
		ReadBack:         ReadBack{Method: ReadDebugfs, LostFound: true},
		PartitionType:    "linux",
		BootFiles:        true,
		Journal:          journal,
		Populate:         PopulateMkfsFlag,
		MinSize:          units.MiB,
		MaxLabel:         16,
		SetsUUID:         true,
		BlockSizes:       []int64{1024, 2048, 4096, 8192, 16384, 32768, 65536},
		DefaultBlockSize: 4096,
		Features:         extFeatureNames(),
		Tuning:           extTuning(name),
		MountOptions:     append(extMountOptions(name), vfsOptions()...),
		Deterministic:    true,
		SetsInodes:       true,
		Note: "Deterministic with -U, -E hash_seed= and E2FSPROGS_FAKE_TIME (mke2fs 1.47.0 ignores SOURCE_DATE_EPOCH); " +
			"with contents, the debugfs step resets every timestamp because mke2fs -d copies ctime from the staged tree. " +
			"Defaults not set by the spec come from the build host's /etc/mke2fs.conf.",
		resolve: resolveExt,
	}
	return t
}

// extBools are the boolean kernel options that mount an ext type.
func extBools(name string) []string {
	if name == "ext2" {
		return []string{"EXT4_USE_FOR_EXT2"}
	}
	return nil
}

func ext2Type() *Type { return extType("ext2", JournalNone) }
func ext3Type() *Type { return extType("ext3", JournalRequired) }
func ext4Type() *Type { return extType("ext4", JournalOptional) }

// extFeatureNames are the -O names mke2fs 1.47.0 accepts (lib/e2p/feature.c),
// tried one by one. journal_dev is left out: it makes an external journal,
// not a filesystem.
func extFeatureNames() []string {
	return []string{
		"64bit", "bigalloc", "casefold", "dir_index", "dir_nlink", "ea_inode",
		"encrypt", "ext_attr", "extent", "extents", "extra_isize", "fast_commit",
		"filetype", "flex_bg", "fname_encoding", "has_journal", "huge_file",
		"inline_data", "large_dir", "large_file", "meta_bg", "metadata_csum",
		"metadata_csum_seed", "mmp", "orphan_file", "project", "quota",
		"resize_inode", "sparse_super", "sparse_super2", "stable_inodes",
		"uninit_bg", "verity",
	}
}

// extOldFeatures are the features the ext2 and ext3 drivers understand
// (EXT2/EXT3_FEATURE_*_SUPP in fs/ext4/ext4.h); any other enabled feature
// leaves a filesystem only the ext4 driver mounts, as ext4.
func extOldFeatures() []string {
	return []string{
		"dir_index", "ext_attr", "filetype", "has_journal", "large_file",
		"meta_bg", "resize_inode", "sparse_super", "sparse_super2",
	}
}

func extTuning(name string) []fields.Field {
	f := []fields.Field{
		{Name: "inode_size", Kind: fields.Int, PowerOfTwo: true, Min: fields.Bound(128), Max: fields.Bound(65536),
			Doc: "mke2fs -I: bytes per inode, a power of two from 128 up to the block size"},
		{Name: "inode_ratio", Kind: fields.Size, Min: fields.Bound(1024), Max: fields.Bound(67108864),
			Doc: "mke2fs -i: bytes per inode (1024 to 64MiB in mke2fs 1.47.0)"},
		{Name: "reserved_percent", Kind: fields.Float, Min: fields.Bound(0), Max: fields.Bound(50), Unit: "%",
			Doc: "mke2fs -m: blocks reserved for root, 0 to 50 percent"},
		intField("stride", 1, extMaxStride,
			"mke2fs -E stride: blocks per erase block; s_raid_stride is 16-bit and mke2fs 1.47.0 truncates larger values silently"),
		intField("stripe_width", 1, extMaxStripe, "mke2fs -E stripe_width: blocks per stripe (32-bit)"),
		boolField("lazy_itable_init", "mke2fs -E lazy_itable_init: leave inode tables for the kernel to zero on first mount"),
		boolField("packed_meta_blocks", "mke2fs -E packed_meta_blocks: bitmaps and inode tables at the start of the device"),
		enumField("errors", []string{"continue", "remount-ro", "panic"}, "mke2fs -e: behaviour on errors"),
	}
	if name != "ext2" {
		f = append(f,
			fields.Field{Name: "journal_size", Kind: fields.Size, Multiple: units.MiB, Min: fields.Bound(float64(units.MiB)),
				Doc: "mke2fs -J size=: journal size in whole MiB, at least 1024 blocks"},
			boolField("lazy_journal_init", "mke2fs -E lazy_journal_init: do not zero the journal"))
	}
	if name == "ext4" {
		f = append(f, fields.Field{Name: "flex_bg_size", Kind: fields.Int, PowerOfTwo: true,
			Min: fields.Bound(1), Max: fields.Bound(1 << 30), Doc: "mke2fs -G: block groups per flex group"})
	}
	return f
}

func resolveExt(b *build) {
	t, s := b.t, b.s
	if s.BlockSize == 0 {
		b.derive("block_size", b.bs, "fixed at 4KiB so the layout does not depend on mke2fs.conf "+
			"(Debian 12 picks 1KiB blocks below 512MiB)")
	}
	b.extJournalFeature()
	if min := max(t.MinSize, 64*b.bs); s.Size >= t.MinSize && s.Size < min {
		b.problem("size", -1, t.Name+" partition too small",
			"mke2fs needs at least %s with %s blocks, the partition has %s", size(min), size(b.bs), size(s.Size))
	} else if b.journal && s.Size >= t.MinSize && s.Size/b.bs < extJournalMin {
		b.problem("size", -1, t.Name+" too small for a journal",
			"a journal needs %d blocks of %s (%s) and the partition has %d; mke2fs 1.47.0 would silently leave the journal out. Enlarge it%s",
			extJournalMin, size(b.bs), size(extJournalMin*b.bs), s.Size/b.bs, unless(t.Journal != JournalOptional, " or set journal = false"))
	}

	b.mkfs("-q", "-F", "-t", t.Name, "-b", itoa(b.bs), "-U", formatUUID(b.uuid))
	if s.Label != "" {
		b.arg("-L", s.Label)
	}
	if o := b.extFeatureArg(); o != "" {
		b.arg("-O", o)
	}
	b.extTuningArgs()
	b.arg("-E", strings.Join(b.extExtended(), ","))
	if s.HasContents {
		b.arg("-d", "{root}")
	}
	b.extra()
	b.arg("{image}")
	b.r.Mkfs.Env = []string{"E2FSPROGS_FAKE_TIME={epoch}"}
	if s.HasContents {
		b.r.Populate = []Command{{
			Argv: []string{"debugfs", "-w", "-f", "{debugfs_script}", "{image}"},
			Env:  []string{"E2FSPROGS_FAKE_TIME={epoch}"},
		}}
	}
	b.extMountChecks()
}

// extJournalFeature reconciles has_journal in the feature list with the
// journal attribute.
func (b *build) extJournalFeature() {
	on, given := b.feature("has_journal")
	if !given {
		return
	}
	i := b.featureIndex("has_journal")
	switch b.t.Journal {
	case JournalNone:
		if on {
			b.problem("features", i, "ext2 has no journal",
				"has_journal makes an ext3 filesystem; choose type ext3 or ext4 instead of enabling it on ext2")
		}
	case JournalRequired:
		if !on {
			b.problem("features", i, "ext3 requires a journal",
				"^has_journal leaves an ext3 filesystem without its journal; choose ext2 or ext4")
		}
	case JournalOptional:
		if b.s.Journal != nil && *b.s.Journal != on {
			b.problem("features", i, "features contradict journal",
				"%q contradicts journal = %t; set it in one place", b.s.Features[i], *b.s.Journal)
			return
		}
		b.journal = on
	}
}

func (b *build) featureIndex(name string) int {
	for _, f := range b.features {
		if f.name == name {
			return f.index
		}
	}
	return -1
}

func (b *build) extFeatureArg() string {
	var out []string
	for _, f := range b.features {
		if f.enabled && b.t.Name != "ext4" && !contains(extOldFeatures(), f.name) {
			b.problem("features", f.index, f.name+" needs ext4",
				"%s is an ext4 feature: the %s driver refuses a filesystem that has it; choose type ext4", f.name, b.t.Name)
		}
		out = append(out, f.String())
	}
	b.extFeatureNeeds()
	if b.t.Name == "ext4" && !b.journal {
		if _, given := b.feature("has_journal"); !given {
			out = append(out, "^has_journal")
		}
	}
	return strings.Join(out, ",")
}

func (b *build) extTuningArgs() {
	if n, ok := b.tuningInt("inode_size"); ok {
		if n > b.bs {
			b.problem("tuning.inode_size", -1, "ext inode larger than a block",
				"mke2fs 1.47.0 takes inode sizes from 128 up to the block size %s; %d is too large", size(b.bs), n)
		}
		b.extInodeRoom(n)
		b.arg("-I", itoa(n))
	}
	if n, ok := b.tuningInt("inode_ratio"); ok {
		b.arg("-i", itoa(n))
	}
	if p, ok := b.tuningFloat("reserved_percent"); ok {
		b.arg("-m", fmt.Sprint(p))
	}
	if e, ok := b.tuningString("errors"); ok {
		b.arg("-e", e)
	}
	if n, ok := b.tuningInt("flex_bg_size"); ok {
		if on, given := b.feature("flex_bg"); given && !on {
			b.problem("tuning.flex_bg_size", -1, "flex_bg_size without flex_bg",
				"mke2fs -G needs the flex_bg feature, which the features list turns off")
		}
		b.arg("-G", itoa(n))
	}
	if n, ok := b.tuningInt("journal_size"); ok {
		b.extJournalSize(n)
	}
}

func (b *build) extJournalSize(n int64) {
	blocks := n / b.bs
	switch {
	case !b.journal:
		b.problem("tuning.journal_size", -1, "journal_size without a journal",
			"journal_size sets the size of a journal and this %s has none; remove it or enable the journal", b.t.Name)
		return
	case blocks < extJournalBlkLo || blocks > extJournalBlkHi:
		b.problem("tuning.journal_size", -1, "ext journal size out of range",
			"mke2fs 1.47.0 takes journals of %d to %d blocks; %s is %d blocks of %s",
			extJournalBlkLo, extJournalBlkHi, size(n), blocks, size(b.bs))
	case b.s.Size > 0 && n > b.s.Size*7/16:
		// mke2fs refuses journals above half the free blocks; a sweep
		// from 16MiB to 16GiB found the largest accepted journal at
		// 0.438 to 0.499 of the size, so 7/16 never fails.
		b.problem("tuning.journal_size", -1, "ext journal too large",
			"mke2fs 1.47.0 refuses a journal larger than half the free blocks; fsbench accepts up to 7/16 of the partition (%s), and %s is more",
			size(b.s.Size*7/16/units.MiB*units.MiB), size(n))
	}
	b.arg("-J", fmt.Sprintf("size=%d", n/units.MiB))
}

// extExtended builds the -E list: the hash seed, the flash geometry and the
// boolean knobs.
func (b *build) extExtended() []string {
	seed := formatUUID(deriveUUID(b.uuid, "ext hash_seed"))
	b.derive("hash_seed", seed, "derived from the filesystem UUID so directory hashes are reproducible")
	ext := []string{"hash_seed=" + seed}

	stride, strideSet := b.tuningInt("stride")
	stripe, stripeSet := b.tuningInt("stripe_width")
	if n, ok := b.eraseBlocks(); ok {
		from := fmt.Sprintf("erase_block %s / block_size %s", size(b.s.Geometry.EraseBlock), size(b.bs))
		if n > extMaxStride && !strideSet {
			b.problem("geometry.erase_block", -1, b.t.Name+" stride too large",
				"%s = %d blocks, but stride is stored in the 16-bit s_raid_stride and mke2fs 1.47.0 silently truncates %d to %d; "+
					"set tuning.stride to at most %d or use a larger block size",
				from, n, n, n&0xffff, extMaxStride)
		}
		if !strideSet {
			stride, strideSet = n, n <= extMaxStride
			b.derive("stride", n, from)
		}
		if !stripeSet {
			stripe, stripeSet = n, true
			b.derive("stripe_width", n, from+" (one erase block per stripe)")
		}
	}
	if strideSet {
		ext = append(ext, "stride="+itoa(stride))
	}
	if stripeSet {
		ext = append(ext, "stripe_width="+itoa(stripe))
	}
	for _, k := range []string{"lazy_itable_init", "lazy_journal_init", "packed_meta_blocks"} {
		if v, ok := b.tuningBool(k); ok {
			ext = append(ext, k+"="+bit(v))
		}
	}
	return ext
}

// extMountChecks reports combinations the ext4 driver refuses at mount time
// (fs/ext4/super.c).
func (b *build) extMountChecks() {
	if b.t.Name == "ext2" {
		return
	}
	if !b.journal {
		// "Nojournal mode, all journal mount options are illegal".
		for _, n := range []string{"data", "commit", "journal_checksum", "journal_async_commit"} {
			if u, ok := b.mounted(n); ok {
				b.problem("mount", u.index, "ext4 without journal refuses "+n,
					"%s: the kernel refuses journal options on a filesystem without a journal (\"can't mount with %s, fs mounted w/o journal\"); remove it or keep the journal", u.text, n)
			}
		}
		return
	}
	data := "ordered"
	if u, ok := b.mounted("data"); ok {
		data = u.value
	}
	if u, ok := b.mounted("journal_async_commit"); ok && data == "ordered" {
		b.problem("mount", u.index, "journal_async_commit needs data=writeback or data=journal",
			"%s: the kernel refuses journal_async_commit in data=ordered mode, the default; add data=writeback or data=journal, or remove it", u.text)
	}
	if data != "journal" {
		return
	}
	for _, n := range []string{"delalloc", "dax"} {
		if u, ok := b.mounted(n); ok {
			b.problem("mount", u.index, "data=journal refuses "+n,
				"%s: the kernel refuses to mount with both data=journal and %s; remove one", u.text, n)
		}
	}
	if u, ok := b.mounted("dioread_nolock"); ok {
		b.problem("mount", u.index, "data=journal ignores dioread_nolock",
			"%s: with data=journal the kernel ignores dioread_nolock; remove it", u.text)
	}
}
