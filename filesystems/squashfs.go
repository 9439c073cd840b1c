package filesystems

import (
	"fmt"
	"strconv"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// squashfs is built by mksquashfs 4.5.1 from the staged directory. Checked:
//
//   - With SOURCE_DATE_EPOCH set, mksquashfs stamps the filesystem and every
//     inode with it, and two runs are bit-identical (-reproducible is the
//     default in 4.5).
//   - -b takes a power of two from 4KiB to 1MiB.
//   - mksquashfs offers lzma, but the kernel's squashfs 4.0 driver has no
//     lzma decompressor (only gzip, lzo, lz4, xz, zstd), so it is left out.
//   - squashfs has no label and no UUID.
//   - unsquashfs -lls reads every inode and directory without writing;
//     there is no check-only mode that decompresses the data.

func squashfsType() *Type {
	var blocks []int64
	for bs := 4 * units.KiB; bs <= units.MiB; bs *= 2 {
		blocks = append(blocks, bs)
	}
	return &Type{
		Name: "squashfs", Tool: "mksquashfs", Package: "squashfs-tools",
		Tools:   []string{"mksquashfs", "unsquashfs"},
		Checker: []string{"unsquashfs", "-no-progress", "-lls"},
		Kernel: Kernel{Config: []string{"SQUASHFS"}, Module: "squashfs", CompressorFlag: "-comp",
			Compressors: map[string]string{"gzip": "SQUASHFS_ZLIB", "lzo": "SQUASHFS_LZO", "lz4": "SQUASHFS_LZ4",
				"xz": "SQUASHFS_XZ", "zstd": "SQUASHFS_ZSTD"}},
		Programs:         hostPrograms("squashfs-tools", "BR2_PACKAGE_HOST_SQUASHFS", "squashfs-tools-native", []string{"-version"}, "mksquashfs", "unsquashfs"),
		Target:           TargetPackages{Buildroot: []string{"BR2_PACKAGE_SQUASHFS"}, Yocto: []string{"squashfs-tools"}},
		ReadBack:         ReadBack{Method: ReadUnsquashfs},
		PartitionType:    "linux",
		ReadOnly:         true,
		Journal:          JournalNone,
		Populate:         PopulateSource,
		MinSize:          4 * units.KiB,
		MaxLabel:         0,
		SetsUUID:         false,
		BlockSizes:       blocks,
		DefaultBlockSize: 128 * units.KiB,
		Tuning: []fields.Field{
			enumField("compression", []string{"gzip", "lzo", "lz4", "xz", "zstd"},
				"mksquashfs -comp (default gzip); lzma is left out because the kernel cannot read it"),
			intField("compression_level", 1, 22, "mksquashfs -Xcompression-level: gzip and lzo 1..9, zstd 1..22"),
		},
		MountOptions:  append(squashfsMountOptions(), vfsOptions()...),
		Deterministic: true,
		Note: "Deterministic with SOURCE_DATE_EPOCH. The image is the tool's output: its size is known only after the build, " +
			"which must check that it fits the partition.",
		resolve: resolveSquashfs,
	}
}

func resolveSquashfs(b *build) {
	comp, compSet := b.tuningString("compression")
	if !compSet {
		comp = "gzip"
	}
	b.mkfs("{root}", "{image}", "-noappend", "-no-progress", "-quiet", "-comp", comp, "-b", itoa(b.bs))
	if lvl, ok := b.tuningInt("compression_level"); ok {
		limit := map[string]int64{"gzip": 9, "lzo": 9, "zstd": 22}[comp]
		switch {
		case limit == 0:
			b.problem("tuning.compression_level", -1, "squashfs "+comp+" has no level",
				"mksquashfs 4.5 takes -Xcompression-level only with gzip and lzo (1..9) and zstd (1..22); %s has none", comp)
		case lvl > limit:
			b.problem("tuning.compression_level", -1, "squashfs compression level too high",
				"mksquashfs 4.5 takes %s levels 1..%d, not %d", comp, limit, lvl)
		}
		b.arg("-Xcompression-level", itoa(lvl))
	}
	b.extra()
	b.r.Mkfs.Env = []string{"SOURCE_DATE_EPOCH={epoch}"}
}

// squashfsMountOptions come from fs/squashfs/super.c.
func squashfsMountOptions() []MountOption {
	return []MountOption{
		enumOpt("errors", []string{"continue", "panic"}, "behaviour on corruption (recent kernels)"),
		{Name: "threads", Value: StringValue, check: squashfsThreads,
			Doc: "decompressor threads: single, multi, percpu or a number (Linux 6.2+)"},
	}
}

func squashfsThreads(v string) error {
	switch v {
	case "single", "multi", "percpu":
		return nil
	}
	if _, err := strconv.ParseUint(v, 10, 32); err != nil {
		return fmt.Errorf("%q is not single, multi, percpu or a number", v)
	}
	return nil
}
