package filesystems

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// xfs is built by mkfs.xfs (xfsprogs 6.1.0). Checked on sparse files:
//
//   - "Filesystem must be larger than 300MB": 300MiB exactly passes.
//   - The log must be at least 64MiB ("Log size must be at least 64MB") and
//     sit inside one allocation group, so each AG needs 64MiB plus its
//     headers (16395 blocks of 4KiB at the limit).
//   - Setting a stripe unit makes mkfs.xfs assume a multi-disk array and
//     choose 8 AGs below 8GiB; a 512MiB filesystem with su=4MiB then fails
//     on the log size. fsbench passes agcount=4, the one-disk default, and
//     a sweep of su 1MiB..16MiB over 300MiB..256GiB never failed. Larger
//     stripe units fail at scattered sizes (su=64MiB at 524..572MiB), so
//     fsbench refuses them.
//   - su must be a multiple of the block size; an inode may take at most
//     half a block; V5 (crc=1) filesystems need 512-byte or larger inodes
//     and blocks of 1KiB or more; crc=0 rules out reflink, rmapbt, bigtime,
//     inobtcount, finobt and sparse; inobtcount needs finobt.
//   - -L takes 12 characters.
//   - xfsprogs 6.1 has no option to populate from a directory (mkfs.xfs -p
//     reads a protofile) and stamps inodes with the clock: two runs with the
//     same -m uuid= differ.

const (
	xfsMinSize    = 300 * units.MiB
	xfsMinLog     = 64 * units.MiB
	xfsAGHeaders  = 16             // blocks: sb, agf, agi, agfl, btree roots, with margin
	xfsMaxSU      = 16 * units.MiB // largest stripe unit proven by the sweep
	xfsDefaultAGs = 4              // mkfs.xfs's one-disk AG count (XFS_NOMULTIDISK_AGLOG)
)

// xfsNames are the names a protofile cannot carry: mkfs.xfs 6.1.0 reads
// it a word at a time (mkfs/proto.c getstr). Tried with ":abc" and "$"
// as names, it left the entry out, and after "$" the rest of the
// directory, and exited 0.
func xfsNames() NameRules {
	return NameRules{Forbidden: " \t\n", NoLeading: ":", Reserved: []string{"$"},
		Why: "fsbench fills xfs through an mkfs.xfs protofile, which splits names at whitespace, " +
			`reads a name starting with ":" as a comment and "$" as the end of a directory`}
}

func xfsType() *Type {
	return &Type{
		Name: "xfs", Tool: "mkfs.xfs", Package: "xfsprogs",
		Tools:   []string{"mkfs.xfs", "xfs_db", "xfs_repair"},
		Checker: []string{"xfs_repair", "-n"},
		Kernel:  Kernel{Config: []string{"XFS_FS"}, Module: "xfs", MountModules: []string{"crc32c_generic"}},
		// Neither Buildroot nor Yocto builds xfsprogs for the build host.
		Programs: append(hostPrograms("xfsprogs", "", "", []string{"-V"}, "mkfs.xfs", "xfs_db", "xfs_repair"),
			targetPrograms("xfsprogs", "xfs_io")...),
		Target: TargetPackages{Buildroot: []string{"BR2_PACKAGE_XFSPROGS"}, Yocto: []string{"xfsprogs"},
			YoctoLayer: "meta-filesystems"},
		// norecovery: a read-back must not write; nouuid: the build's
		// images share UUIDs derived from the same names.
		ReadBack:         ReadBack{Method: ReadMount, MountOptions: "ro,norecovery,nouuid"},
		PartitionType:    "linux",
		Journal:          JournalRequired,
		Populate:         PopulateProtofile,
		MinSize:          xfsMinSize,
		MaxLabel:         12,
		SetsUUID:         true,
		BlockSizes:       []int64{1024, 2048, 4096, 8192, 16384, 32768, 65536},
		DefaultBlockSize: 4096,
		Features:         nil,
		Tuning: []fields.Field{
			intField("agcount", 2, 1<<20, "mkfs.xfs -d agcount: allocation groups (at least 2 for a backup superblock)"),
			{Name: "su", Kind: fields.Size, Min: fields.Bound(512), Max: fields.Bound(float64(xfsMaxSU)),
				Doc: "mkfs.xfs -d su: stripe unit in bytes, a multiple of the block size"},
			intField("sw", 1, 1<<16, "mkfs.xfs -d sw: stripe units per stripe"),
			{Name: "log_size", Kind: fields.Size, Min: fields.Bound(float64(xfsMinLog)), Max: fields.Bound(float64(2*units.GiB - 4096)),
				Doc: "mkfs.xfs -l size: at least 64MiB in xfsprogs 6.1, inside one allocation group"},
			{Name: "inode_size", Kind: fields.Int, PowerOfTwo: true, Min: fields.Bound(256), Max: fields.Bound(2048),
				Doc: "mkfs.xfs -i size: 512 to 2048 (256 only with crc = false), at most half a block"},
			boolField("crc", "mkfs.xfs -m crc: V5 format with metadata checksums (default true)"),
			boolField("reflink", "mkfs.xfs -m reflink: shared extents (default true)"),
			boolField("rmapbt", "mkfs.xfs -m rmapbt: reverse-mapping btree"),
			boolField("finobt", "mkfs.xfs -m finobt: free inode btree (default true)"),
			boolField("bigtime", "mkfs.xfs -m bigtime: timestamps past 2038 (default true)"),
			boolField("inobtcount", "mkfs.xfs -m inobtcount: inode btree counters (default true)"),
			boolField("sparse", "mkfs.xfs -i sparse: sparse inode chunks (default true)"),
		},
		Names:         xfsNames(),
		MountOptions:  append(xfsMountOptions(), vfsOptions()...),
		Deterministic: false,
		Note: "Not deterministic: mkfs.xfs 6.1 stamps inodes with the current time and has no SOURCE_DATE_EPOCH " +
			"support; only the UUID (-m uuid=) is fixed. The protofile carries no xattrs or hard links, " +
			"and its whitespace-separated tokens cannot name files containing spaces.",
		resolve: resolveXFS,
	}
}

func resolveXFS(b *build) {
	s := b.s
	crc, crcSet := b.tuningBool("crc")
	b.xfsFeatureRules(crc || !crcSet)
	meta := []string{"uuid=" + formatUUID(b.uuid)}
	for _, k := range []string{"crc", "reflink", "rmapbt", "finobt", "bigtime", "inobtcount"} {
		if v, ok := b.tuningBool(k); ok {
			meta = append(meta, k+"="+bit(v))
		}
	}
	b.mkfs("-q", "-f", "-m", strings.Join(meta, ","), "-b", "size="+itoa(b.bs))
	if s.Label != "" {
		b.arg("-L", s.Label)
	}
	if data := b.xfsData(); len(data) > 0 {
		b.arg("-d", strings.Join(data, ","))
	}
	var inode []string
	if n, ok := b.tuningInt("inode_size"); ok {
		inode = append(inode, "size="+itoa(n))
	}
	if v, ok := b.tuningBool("sparse"); ok {
		inode = append(inode, "sparse="+bit(v))
	}
	if len(inode) > 0 {
		b.arg("-i", strings.Join(inode, ","))
	}
	if n, ok := b.tuningInt("log_size"); ok {
		b.arg("-l", "size="+itoa(n))
	}
	if s.HasContents {
		b.arg("-p", "{protofile}")
	}
	b.extra()
	b.arg("{image}")
	if s.HasContents {
		// The protofile's mode field holds three octal digits: no sticky
		// bit (xfsprogs 6.1 mkfs/proto.c). xfs_db sets it afterwards on
		// the entries that need it, such as /tmp.
		b.r.Populate = append(b.r.Populate, Command{Argv: []string{"xfs_db", "-x", "{xfs_mode_fixups}", "{image}"}})
	}
}

// xfsData derives the stripe geometry from the erase block and returns the
// -d options.
func (b *build) xfsData() []string {
	var data []string
	su, suSet := b.tuningInt("su")
	sw, swSet := b.tuningInt("sw")
	if n, ok := b.eraseBlocks(); ok && !suSet {
		eb := b.s.Geometry.EraseBlock
		if eb > xfsMaxSU {
			b.problem("geometry.erase_block", -1, "xfs stripe unit too large",
				"the erase block %s would become the xfs stripe unit, but mkfs.xfs 6.1 fails at scattered sizes with stripe units above %s; set tuning.su to at most %s",
				size(eb), size(xfsMaxSU), size(xfsMaxSU))
		} else {
			su, suSet = eb, true
			b.derive("su", eb, fmt.Sprintf("erase_block %s (%d blocks of %s)", size(eb), n, size(b.bs)))
		}
	}
	if suSet && su%b.bs != 0 {
		b.problem("tuning.su", -1, "xfs stripe unit not whole blocks",
			"mkfs.xfs needs the stripe unit to be a multiple of the block size %s; %s is not", size(b.bs), size(su))
	}
	if suSet && !swSet {
		sw = 1
		b.derive("sw", sw, "one stripe unit per stripe: a single flash device")
	}
	ag, agSet := b.tuningInt("agcount")
	if suSet && !agSet && b.s.Size < 4*units.TiB {
		ag, agSet = xfsDefaultAGs, true
		b.derive("agcount", ag, "mkfs.xfs 6.1 treats a stripe unit as a multi-disk array and picks 8 AGs below 8GiB, "+
			"which leaves no AG room for the 64MiB log under 1GiB; 4 is its one-disk default")
	}
	b.xfsLog(ag, agSet)
	if suSet {
		data = append(data, "su="+itoa(su), "sw="+itoa(sw))
	}
	if agSet {
		data = append(data, "agcount="+itoa(ag))
	}
	return data
}

func (b *build) xfsFeatureRules(crc bool) {
	if !crc {
		for _, k := range []string{"reflink", "rmapbt", "bigtime", "inobtcount", "finobt", "sparse"} {
			if v, ok := b.tuningBool(k); ok && v {
				b.problem("tuning."+k, -1, "xfs "+k+" needs crc",
					"mkfs.xfs 6.1 refuses %s without CRC (V5) metadata; set crc = true or drop %s", k, k)
			}
		}
	}
	if v, ok := b.tuningBool("inobtcount"); ok && v {
		if f, ok := b.tuningBool("finobt"); ok && !f {
			b.problem("tuning.inobtcount", -1, "xfs inobtcount needs finobt",
				"mkfs.xfs 6.1 refuses inobtcount without finobt")
		}
	}
	if n, ok := b.tuningInt("inode_size"); ok {
		switch {
		case crc && n < 512:
			b.problem("tuning.inode_size", -1, "xfs inode too small",
				"V5 (crc) xfs needs inodes of at least 512 bytes; %d works only with crc = false", n)
		case n > b.bs/2:
			b.problem("tuning.inode_size", -1, "xfs inode too large",
				"mkfs.xfs 6.1 takes inodes of at most half a block (%d bytes with %s blocks); %d is too large", b.bs/2, size(b.bs), n)
		}
	}
}

// xfsLog checks that the 64MiB (or larger) log fits in one allocation
// group.
func (b *build) xfsLog(ag int64, agSet bool) {
	if b.s.Size < xfsMinSize {
		return
	}
	if !agSet {
		ag = xfsDefaultAGs
	}
	log, logSet := b.tuningInt("log_size")
	if !logSet {
		log = xfsMinLog
	}
	agBytes := ceilDiv(b.s.Size, ag)
	need := log + xfsAGHeaders*b.bs
	if agBytes >= need {
		return
	}
	field := "tuning.agcount"
	if logSet && !agSet {
		field = "tuning.log_size"
	}
	b.problem(field, -1, "xfs log does not fit in an allocation group",
		"%d allocation groups of %s leave no room for a %s log (mkfs.xfs 6.1: \"Log size must be at least 64MB\"); use at most %d groups or a smaller log",
		ag, size(agBytes), size(log), max(2, b.s.Size/need))
}

// xfsMountOptions come from Documentation/admin-guide/xfs.rst and
// xfs_fs_parameters in fs/xfs/xfs_super.c.
func xfsMountOptions() []MountOption {
	o := []MountOption{
		{Name: "allocsize", Value: SizeValue, Min: 4096, Max: units.GiB, PowerOfTwo: true,
			Doc: "fixed end-of-file preallocation, 4KiB to 1GiB in powers of two"},
		status(grouped(flag("attr2", "opportunistic inline xattr format"), "attr2", "on"), Ignored,
			"deprecated, and Linux 6.18 ignores it; V5 (crc) filesystems always use attr2. Remove it"),
		status(grouped(flag("noattr2", "no attr2"), "attr2", "off"), Removed,
			"V5 (crc) filesystems refuse noattr2, and Linux 6.18 ignores it; remove it"),
	}
	o = append(o, pair("discard", "discard", "nodiscard", "discard freed blocks (default off)")...)
	o = append(o,
		grouped(flag("grpid", "new files take the directory's group"), "grpid", "on"),
		grouped(flag("bsdgroups", "same as grpid"), "grpid", "on"),
		grouped(flag("nogrpid", "new files take the creator's group (default)"), "grpid", "off"),
		grouped(flag("sysvgroups", "same as nogrpid"), "grpid", "off"),
		flag("filestreams", "filestreams allocator for the whole filesystem"),
		status(grouped(flag("ikeep", "keep empty inode clusters"), "ikeep", "on"), Removed,
			"deprecated since Linux 5.x and removed in 6.18; remove it"),
		status(grouped(flag("noikeep", "free empty inode clusters (default)"), "ikeep", "off"), Removed,
			"deprecated since Linux 5.x and removed in 6.18; remove it"),
		grouped(flag("inode32", "inode numbers below 2^32"), "inode64", "off"),
		grouped(flag("inode64", "inodes anywhere (default)"), "inode64", "on"),
		grouped(flag("largeio", "report swidth or allocsize in st_blksize"), "largeio", "on"),
		grouped(flag("nolargeio", "report the page size in st_blksize (default)"), "largeio", "off"),
		uintOpt("logbufs", 2, 8, "in-memory log buffers, 2 to 8 (default 8)"),
		MountOption{Name: "logbsize", Value: SizeValue, Min: 16384, Max: 262144, PowerOfTwo: true,
			Doc: "in-memory log buffer size: 16k, 32k, 64k, 128k or 256k"},
		strOpt("logdev", "external log device"), strOpt("rtdev", "realtime device"),
		flag("noalign", "do not align allocations to the stripe unit"),
		flag("norecovery", "skip log recovery; needs ro"),
		flag("nouuid", "ignore the UUID when checking for double mounts"),
		flag("noquota", "no quota"),
		flag("uquota", "user quota"), flag("usrquota", "user quota"), flag("uqnoenforce", "user quota accounting"),
		flag("quota", "user quota"), flag("qnoenforce", "user quota accounting"),
		flag("gquota", "group quota"), flag("grpquota", "group quota"), flag("gqnoenforce", "group quota accounting"),
		flag("pquota", "project quota"), flag("prjquota", "project quota"), flag("pqnoenforce", "project quota accounting"),
		uintOpt("sunit", 0, 0, "stripe unit in 512-byte units"),
		uintOpt("swidth", 0, 0, "stripe width in 512-byte units"),
		flag("swalloc", "round allocations to the stripe width"),
		flag("wsync", "synchronous namespace operations"),
		MountOption{Name: "dax", Value: EnumValue, Enum: []string{"inode", "always", "never"}, ValueOptional: true,
			Doc: "direct access; bare dax means dax=always"},
		status(grouped(flag("barrier", "cache flushes"), "barrier", "on"), Removed,
			"Linux 4.19 removed barrier and nobarrier from xfs (Documentation/admin-guide/xfs.rst); xfs always flushes, and the mount fails. Remove it"),
		status(grouped(flag("nobarrier", "no cache flushes"), "barrier", "off"), Removed,
			"Linux 4.19 removed barrier and nobarrier from xfs (Documentation/admin-guide/xfs.rst); xfs always flushes, and the mount fails. Remove it"),
	)
	return o
}
