package filesystems

import (
	"fmt"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// nilfs2 is built by mkfs.nilfs2 (nilfs-tools 2.2.9, sbin/mkfs/mkfs.c).
// Checked on sparse files:
//
//   - -B (blocks per segment) must be a power of two and at least 16
//     (NILFS_SEG_MIN_BLOCKS); 17, 24 and 48 are refused. ELC2015 sets it to
//     the blocks in one erase block, so an erase block that is not a power
//     of two blocks cannot be matched.
//   - -m is a percentage of segments reserved for the cleaner, 1 to 99,
//     not a count.
//   - The volume needs max(ceil(m% of segments), 8) + 8 segments in front
//     of the secondary superblock in the last 4KiB (nilfs_min_nsegments);
//     with the default -B 2048 and 4KiB blocks that is 128MiB + 4KiB.
//   - -b takes 1024 up to the host page size (4096 here).
//   - -L keeps 80 bytes and silently drops the rest.
//   - Below 1MiB mkfs.nilfs2 aborts on an assertion in erase_disk(), even
//     where the segment arithmetic would fit.
//   - mkfs.nilfs2 has no option for the UUID and seeds the checksum from
//     the clock; -P fixes only the creation time. There is no fsck
//     (Documentation/filesystems/nilfs2.rst lists it as unsupported) and no
//     offline populate.

const (
	nilfsMinUserSegs = 8  // NILFS_MIN_NUSERSEGS
	nilfsMinRsvSegs  = 8  // NILFS_MIN_NRSVSEGS
	nilfsMinSegBlks  = 16 // NILFS_SEG_MIN_BLOCKS
	nilfsDefaultBlks = 2048
	nilfsDefaultRsv  = 5
)

func nilfs2Type() *Type {
	return &Type{
		Name: "nilfs2", Tool: "mkfs.nilfs2", Package: "nilfs-tools",
		Tools:     []string{"mkfs.nilfs2"},
		Checker:   nil,
		NoChecker: "nilfs2 has no offline checker (it recovers from its log at mount)",
		Kernel:    Kernel{Config: []string{"NILFS2_FS"}, Module: "nilfs2"},
		// Neither Buildroot nor Yocto builds nilfs-utils for the build
		// host.
		Programs: withData(append(hostPrograms("nilfs-tools", "", "", []string{"-V"}, "mkfs.nilfs2"),
			targetPrograms("nilfs-tools", "nilfs-tune", "nilfs_cleanerd")...),
			[]string{"etc/nilfs_cleanerd.conf"}, "nilfs_cleanerd"),
		Target: TargetPackages{Buildroot: []string{"BR2_PACKAGE_NILFS_UTILS"}, Yocto: []string{"nilfs-utils"},
			YoctoLayer: "meta-filesystems"},
		ReadBack:      ReadBack{Method: ReadInGuest},
		PartitionType: "linux",
		// nilfs-utils' mount.nilfs2 starts it on every mount; without it
		// no segment is ever reclaimed.
		Cleaner:          []string{"nilfs_cleanerd", "-c", "/etc/nilfs_cleanerd.conf", "{device}", "{mountpoint}"},
		CleanerPeriod:    []string{"-p", "{seconds}"},
		Journal:          JournalNone,
		Populate:         PopulateVM,
		MinSize:          units.MiB, // with the smallest segments; see nilfsMinSize
		MaxLabel:         80,
		SetsUUID:         false,
		BlockSizes:       []int64{1024, 2048, 4096},
		DefaultBlockSize: 4096,
		Features:         []string{"block_count"},
		Tuning: []fields.Field{
			{Name: "blocks_per_segment", Kind: fields.Int, PowerOfTwo: true, Min: fields.Bound(nilfsMinSegBlks), Max: fields.Bound(1 << 30),
				Doc: "mkfs.nilfs2 -B: blocks per segment, a power of two of at least 16 (default 2048)"},
			intField("reserved_segments_percent", 1, 99,
				"mkfs.nilfs2 -m: percent of segments reserved for the cleaner (default 5)"),
		},
		MountOptions:  append(nilfs2MountOptions(), vfsOptions()...),
		Deterministic: false,
		Note: "Not deterministic: mkfs.nilfs2 2.2.9 draws the UUID at random and seeds the checksum from the clock. " +
			"No fsck exists for nilfs2; the image can only be checked by mounting it (in a VM). " +
			"Contents are written by a QEMU helper boot that mounts the new filesystem, as no host tool writes nilfs2 offline.",
		resolve: resolveNILFS2,
	}
}

// nilfsMinSize is the smallest device mkfs.nilfs2 accepts: enough whole
// segments before the secondary superblock in the last 4KiB, and 1MiB.
func nilfsMinSize(bs, blocksPerSeg, rsvPercent int64) int64 {
	seg := bs * blocksPerSeg
	for n := int64(nilfsMinUserSegs + nilfsMinRsvSegs); ; n++ {
		if n >= nilfsMinSegments(n, rsvPercent) {
			return max(n*seg+4096, units.MiB)
		}
	}
}

func nilfsMinSegments(nsegs, rsvPercent int64) int64 {
	return max((rsvPercent*nsegs-1)/100+1, nilfsMinRsvSegs) + max(2, nilfsMinUserSegs)
}

func resolveNILFS2(b *build) {
	s := b.s
	bps, bpsSet := b.tuningInt("blocks_per_segment")
	if n, ok := b.eraseBlocks(); ok && !bpsSet {
		from := fmt.Sprintf("erase_block %s / block_size %s", size(s.Geometry.EraseBlock), size(b.bs))
		if n < nilfsMinSegBlks || !units.IsPowerOfTwo(n) {
			b.problem("geometry.erase_block", -1, "nilfs2 segment cannot match the erase block",
				"%s = %d blocks, but mkfs.nilfs2 2.2.9 needs blocks per segment to be a power of two of at least %d; set tuning.blocks_per_segment or change the block size",
				from, n, nilfsMinSegBlks)
		} else {
			bps, bpsSet = n, true
			b.derive("blocks_per_segment", n, from)
		}
	}
	if !bpsSet {
		bps = nilfsDefaultBlks
	}
	rsv, rsvSet := b.tuningInt("reserved_segments_percent")
	if !rsvSet {
		rsv = nilfsDefaultRsv
	}
	if min := nilfsMinSize(b.bs, bps, rsv); s.Size >= b.t.MinSize && s.Size < min {
		field := "size"
		if bpsSet {
			field = "tuning.blocks_per_segment"
			if _, ok := b.tuningInt("blocks_per_segment"); !ok {
				field = "geometry.erase_block"
			}
		}
		b.problem(field, -1, "nilfs2 partition too small for its segments",
			"mkfs.nilfs2 2.2.9 needs %d segments of %s (%d blocks of %s) plus 4KiB, %s in all, and the partition has %s; enlarge it or shorten segments",
			nilfsMinSegments((min-4096)/(b.bs*bps), rsv), size(b.bs*bps), bps, size(b.bs), size(min), size(s.Size))
	}

	b.mkfs("-q", "-f", "-b", itoa(b.bs), "-B", itoa(bps), "-P", "{epoch}")
	if rsvSet {
		b.arg("-m", itoa(rsv))
	}
	if s.Label != "" {
		b.arg("-L", s.Label)
	}
	if len(b.features) > 0 {
		b.arg("-O", b.features[0].String())
	}
	b.extra()
	b.arg("{image}")
}

// nilfs2MountOptions come from Documentation/filesystems/nilfs2.rst and
// fs/nilfs2/super.c. nilfs2 does not keep atime; the VFS flags are still
// accepted.
func nilfs2MountOptions() []MountOption {
	o := pair("barrier", "barrier", "nobarrier", "issue cache flushes (default)")
	o = append(o,
		enumOpt("errors", []string{"continue", "remount-ro", "panic"}, "behaviour on errors (default remount-ro)"),
		uintOpt("cp", 0, 0, "mount the snapshot with this checkpoint number; needs ro"),
		enumOpt("order", []string{"relaxed", "strict"}, "write ordering (default relaxed)"),
		flag("norecovery", "skip recovery on mount"),
	)
	return append(o, pair("discard", "discard", "nodiscard", "issue discard when segments are freed")...)
}
