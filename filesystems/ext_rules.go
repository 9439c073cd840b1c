package filesystems

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/units"
)

// mke2fs 1.47.0 refuses some combinations of features and inode sizes
// (misc/mke2fs.c), each tried on a 32MiB file:
//
//   - 64bit needs extent ("Extents MUST be enabled for a 64-bit
//     filesystem"). ext4 gets 64bit from mke2fs.conf, so "^extent" alone
//     fails on ext4; with "^64bit" as well it works.
//   - bigalloc needs extent ("Can't support bigalloc feature without
//     extents feature").
//   - meta_bg refuses resize_inode, and resize_inode needs sparse_super
//     ("reserved online resize blocks not supported on non-sparse
//     filesystem"); resize_inode is on by default.
//   - metadata_csum_seed needs metadata_csum, orphan_file a journal. When
//     they come from mke2fs.conf (upstream's ext4 has both) mke2fs drops
//     them silently; only a spec that names them meets the refusal.
//   - 128-byte inodes have no room for inline_data or project quota ("128
//     byte inodes are too small for ..."); quota alone works.
//   - mke2fs counts size / inode_ratio inodes and refuses when they take
//     the whole size ("inode_size (1024) * inodes_count (32768) too big"),
//     that is when inode_ratio is not above inode_size. Just above it the
//     other metadata does not fit either: 1024-byte inodes needed a ratio
//     of 1216 on 32MiB and 1152 on 1GiB.

// extConfFeatures are the features mke2fs.conf turns on for a type
// (base_features and [fs_types], as e2fsprogs 1.47.0 and Debian 12 ship
// it), but metadata_csum_seed and orphan_file, which mke2fs drops when
// they conflict.
func extConfFeatures(name string) []string {
	on := []string{"sparse_super", "large_file", "filetype", "resize_inode", "dir_index", "ext_attr"}
	switch name {
	case "ext3":
		on = append(on, "has_journal")
	case "ext4":
		on = append(on, "has_journal", "extent", "huge_file", "flex_bg", "metadata_csum", "64bit", "dir_nlink", "extra_isize")
	}
	return on
}

// extConfInodeRatio is mke2fs.conf's inode_ratio for a filesystem of
// size bytes, by the usage class mke2fs picks from the size.
func extConfInodeRatio(size int64) int64 {
	switch {
	case size < 3*units.MiB:
		return 8192 // floppy
	case size < 512*units.MiB:
		return 4096 // small
	case size < 4*units.TiB:
		return 16384
	case size < 16*units.TiB:
		return 32768 // big
	}
	return 65536 // huge
}

// extSpelling is the other name mke2fs accepts for a feature
// (lib/e2p/feature.c), or "".
func extSpelling(name string) string {
	if name == "extent" {
		return "extents"
	}
	return ""
}

// extGiven returns the feature's state and index in the spec's list,
// under either of its names; index -1 when the spec does not name it.
func (b *build) extGiven(name string) (on bool, index int) {
	for _, n := range []string{name, extSpelling(name)} {
		if on, given := b.feature(n); given && n != "" {
			return on, b.featureIndex(n)
		}
	}
	return false, -1
}

// extOn tells whether a feature ends up on: as the spec says, else as
// mke2fs.conf does. has_journal is the journal the checks settled on.
func (b *build) extOn(name string) bool {
	if name == "has_journal" {
		return b.journal
	}
	if on, i := b.extGiven(name); i >= 0 {
		return on
	}
	return contains(extConfFeatures(b.t.Name), name)
}

// extNeed is one combination mke2fs refuses: feature without need, each
// written as in a features list ("^x" for off), and mke2fs's words.
type extNeed struct{ feature, need, refusal string }

// extNeeds are the combinations mke2fs 1.47.0 refuses.
func extNeeds() []extNeed {
	return []extNeed{
		{"meta_bg", "^resize_inode", "The resize_inode and meta_bg features are not compatible"},
		{"^sparse_super", "^resize_inode", "reserved online resize blocks not supported on non-sparse filesystem"},
		{"64bit", "extent", "Extents MUST be enabled for a 64-bit filesystem"},
		{"bigalloc", "extent", "Can't support bigalloc feature without extents feature"},
		{"metadata_csum_seed", "metadata_csum", "The metadata_csum_seed feature requires the metadata_csum feature"},
		{"orphan_file", "has_journal", "cannot set orphan_file feature without a journal"},
	}
}

// extFeatureNeeds reports the feature combinations mke2fs refuses, at
// the feature the spec names.
func (b *build) extFeatureNeeds() {
	for _, n := range extNeeds() {
		fOn, fAt := b.extState(n.feature)
		nOn, nAt := b.extState(n.need)
		if !fOn || nOn || (fAt < 0 && nAt < 0) || b.extNeedsExt4(n.feature) {
			continue
		}
		at := fAt
		if at < 0 {
			at = nAt
		}
		b.problem("features", at, b.t.Name+" "+n.feature+" needs "+n.need, "mke2fs 1.47.0 refuses %s%s without %s (%q); %s",
			n.feature, b.extDefault(fAt), n.need, n.refusal, b.extFixes(n, fAt, nAt))
	}
}

// extNeedsExt4 tells that the spec enables an ext4 feature on ext2 or
// ext3, which extFeatureArg reports already: what else it needs is moot.
func (b *build) extNeedsExt4(feature string) bool {
	on, at := b.extGiven(feature)
	return on && at >= 0 && b.t.Name != "ext4" && !contains(extOldFeatures(), feature)
}

// extState tells whether a feature written as in a features list ("^x"
// for off) holds, and where the spec says so (-1: by default).
func (b *build) extState(s string) (holds bool, index int) {
	name, off := strings.CutPrefix(s, "^")
	_, index = b.extGiven(name)
	return b.extOn(name) != off, index
}

// extDefault says where a feature comes from that is on although the
// spec does not name it.
func (b *build) extDefault(index int) string {
	if index >= 0 {
		return ""
	}
	return fmt.Sprintf(" (on for %s in mke2fs.conf)", b.t.Name)
}

// extFixes names the edits that resolve n: drop or flip what the spec
// wrote, or write what mke2fs.conf decides otherwise.
func (b *build) extFixes(n extNeed, fAt, nAt int) string {
	var fixes []string
	if fAt >= 0 {
		fixes = append(fixes, fmt.Sprintf("remove %q", b.s.Features[fAt]))
	} else {
		fixes = append(fixes, fmt.Sprintf("add %q", flip(n.feature)))
	}
	switch {
	case n.need == "has_journal":
		fixes = append(fixes, "keep the journal")
	case nAt >= 0:
		fixes = append(fixes, fmt.Sprintf("remove %q", b.s.Features[nAt]))
	default:
		fixes = append(fixes, fmt.Sprintf("add %q", n.need))
	}
	return strings.Join(fixes, " or ")
}

// flip turns a feature on or off as a features list writes it.
func flip(s string) string {
	if name, off := strings.CutPrefix(s, "^"); off {
		return name
	}
	return "^" + s
}

// extInodeRoom reports inode sizes mke2fs refuses: 128 bytes with
// inline_data or project quota, and inodes that fill the filesystem.
func (b *build) extInodeRoom(inodeSize int64) {
	if inodeSize == 128 {
		for _, f := range []string{"inline_data", "project"} {
			if b.extOn(f) {
				b.problem("tuning.inode_size", -1, "128-byte inodes too small for "+f,
					"mke2fs 1.47.0 refuses %s with 128-byte inodes (\"128 byte inodes are too small\"); set inode_size to 256 or more, or remove %q",
					f, f)
			}
		}
	}
	ratio, given := b.tuningInt("inode_ratio")
	field, from := "tuning.inode_ratio", ""
	if !given {
		// mke2fs raises mke2fs.conf's ratio to a block, or a cluster.
		ratio = max(extConfInodeRatio(b.s.Size), b.bs)
		if b.extOn("bigalloc") {
			ratio = max(ratio, 16*b.bs)
		}
		field, from = "tuning.inode_size", fmt.Sprintf(", mke2fs.conf's for %s", size(b.s.Size))
	}
	if inodeSize >= ratio {
		b.problem(field, -1, b.t.Name+" inodes fill the filesystem",
			"mke2fs 1.47.0 makes an inode per inode_ratio bytes (%s%s), and inodes of %d bytes would take all the space (\"inode_size * inodes_count too big\"); "+
				"set inode_ratio to at least twice inode_size (%s), or a smaller inode_size",
			size(ratio), from, inodeSize, size(2*inodeSize))
	}
}
