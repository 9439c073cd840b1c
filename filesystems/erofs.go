package filesystems

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// erofs is built by mkfs.erofs 1.5 (erofs-utils) from the staged
// directory. Checked:
//
//   - -T fixes every timestamp and -U the UUID; two runs are bit-identical.
//   - Debian's build offers only the lz4 and lz4hc compressors; lz4hc takes
//     levels 0 to 12 and lz4 none.
//   - 1.5 has no -L (labels came later) and no block size option: blocks are
//     the page size, 4KiB.
//   - fsck.erofs --extract without a path decodes every file and writes
//     nothing.

func erofsType() *Type {
	return &Type{
		Name: "erofs", Tool: "mkfs.erofs", Package: "erofs-utils",
		Tools:   []string{"mkfs.erofs", "fsck.erofs"},
		Checker: []string{"fsck.erofs", "--extract"},
		Kernel: Kernel{Config: []string{"EROFS_FS"}, Module: "erofs", CompressorFlag: "-z",
			Compressors: map[string]string{"*": "EROFS_FS_ZIP"}},
		// mkfs.erofs 1.5 has no version flag: refusing one, it prints
		// its version below the usage.
		Programs: hostPrograms("erofs-utils", "BR2_PACKAGE_HOST_EROFS_UTILS", "erofs-utils-native", []string{"-V"},
			"mkfs.erofs", "fsck.erofs"),
		Target:           TargetPackages{Buildroot: []string{"BR2_PACKAGE_EROFS_UTILS"}, Yocto: []string{"erofs-utils"}},
		ReadBack:         ReadBack{Method: ReadMount, MountOptions: "ro"},
		PartitionType:    "linux",
		ReadOnly:         true,
		Journal:          JournalNone,
		Populate:         PopulateSource,
		MinSize:          4 * units.KiB,
		MaxLabel:         0,
		SetsUUID:         true,
		BlockSizes:       []int64{4096},
		DefaultBlockSize: 4096,
		Tuning: []fields.Field{
			enumField("compression", []string{"none", "lz4", "lz4hc"}, "mkfs.erofs -z (default none)"),
			intField("compression_level", 0, 12, "mkfs.erofs -z lz4hc,N: 0 to 12"),
			{Name: "pcluster_size", Kind: fields.Size, Multiple: 4096, Min: fields.Bound(4096), Max: fields.Bound(float64(units.MiB)),
				Doc: "mkfs.erofs -C: largest compressed physical cluster (big pclusters need Linux 5.13+)"},
			boolField("ztailpacking", "mkfs.erofs -E ztailpacking: pack compressed tails into metadata (Linux 5.17+)"),
			boolField("noinline_data", "mkfs.erofs -E noinline_data: no inline data, for FSDAX (Linux 5.15+)"),
		},
		MountOptions:  append(erofsMountOptions(), vfsOptions()...),
		Deterministic: true,
		Note: "Deterministic with -T and -U. The image is the tool's output: its size is known only after the build, " +
			"which must check that it fits the partition.",
		resolve: resolveEROFS,
	}
}

func resolveEROFS(b *build) {
	b.mkfs("--quiet", "-T", "{epoch}", "-U", formatUUID(b.uuid))
	comp, _ := b.tuningString("compression")
	lvl, lvlSet := b.tuningInt("compression_level")
	switch {
	case lvlSet && comp != "lz4hc":
		b.problem("tuning.compression_level", -1, "erofs compression level needs lz4hc",
			"mkfs.erofs 1.5 takes a level only with lz4hc; set compression = \"lz4hc\" or remove compression_level")
	case comp == "lz4hc" && lvlSet:
		b.arg("-z", fmt.Sprintf("lz4hc,%d", lvl))
	case comp != "" && comp != "none":
		b.arg("-z", comp)
	}
	if n, ok := b.tuningInt("pcluster_size"); ok {
		if comp == "" || comp == "none" {
			b.problem("tuning.pcluster_size", -1, "erofs pcluster_size needs compression",
				"pcluster_size sizes compressed clusters; set compression or remove it")
		}
		b.arg("-C", itoa(n))
	}
	var ext []string
	for _, k := range []string{"ztailpacking", "noinline_data"} {
		if v, ok := b.tuningBool(k); ok && v {
			ext = append(ext, k)
		}
	}
	if len(ext) > 0 {
		b.arg("-E", strings.Join(ext, ","))
	}
	b.extra()
	b.arg("{image}", "{root}")
}

// erofsMountOptions come from Documentation/filesystems/erofs.rst.
func erofsMountOptions() []MountOption {
	o := pair("user_xattr", "user_xattr", "nouser_xattr", "user extended attributes (default)")
	o = append(o, pair("acl", "acl", "noacl", "POSIX ACLs (default)")...)
	return append(o,
		enumOpt("cache_strategy", []string{"disabled", "readahead", "readaround"}, "cached decompression strategy"),
		MountOption{Name: "dax", Value: EnumValue, Enum: []string{"always", "never"}, ValueOptional: true,
			Doc: "direct access; bare dax means dax=always"},
		strOpt("device", "extra device"),
		flag("directio", "direct I/O to a backing file (file-backed mounts)"),
		strOpt("domain_id", "trusted domain for page cache sharing"),
		MountOption{Name: "fsoffset", Value: UintValue, Doc: "block-aligned filesystem offset on the device"},
		flag("inode_share", "share page cache between identical inodes"),
		strOpt("source", "backing image of a file-backed mount"),
	)
}
