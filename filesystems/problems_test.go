package filesystems

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/units"
)

func base(typ string) Spec {
	return Spec{Type: typ, UUID: testUUID, Size: 512 * units.MiB}
}

func with(s Spec, f func(*Spec)) Spec {
	f(&s)
	return s
}

func tuned(typ string, kv ...any) Spec {
	s := base(typ)
	s.Tuning = map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		s.Tuning[kv[i].(string)] = kv[i+1]
	}
	return s
}

func mounted(typ string, opts ...string) Spec {
	s := base(typ)
	s.Mount = opts
	return s
}

func erase(typ string, eb int64) Spec {
	s := base(typ)
	s.Geometry.EraseBlock = eb
	return s
}

func sized(typ string, n int64) Spec {
	s := base(typ)
	s.Size = n
	return s
}

func featured(typ string, f ...string) Spec {
	s := base(typ)
	s.Features = f
	return s
}

func files(typ string, paths ...string) Spec {
	s := base(typ)
	s.HasContents, s.Files = true, paths
	return s
}

func extensions(prefix string, n int) []any {
	var out []any
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func journal(typ string, on bool) Spec {
	s := base(typ)
	s.Journal = &on
	return s
}

// TestProblems holds one case for every problem Resolve can report.
func TestProblems(t *testing.T) {
	cases := []struct {
		name    string
		spec    Spec
		field   string
		index   int
		summary string
	}{
		// Common checks.
		{"unknown type", base("ext5"), "type", -1, "unknown filesystem type"},
		{"no size", sized("ext4", 0), "size", -1, "size missing"},
		{"below MinSize", sized("xfs", 300*units.MiB-4096), "size", -1, "xfs partition too small"},
		{"no label", with(base("squashfs"), func(s *Spec) { s.Label = "x" }), "label", -1, "squashfs has no label"},
		{"erofs no label", with(base("erofs"), func(s *Spec) { s.Label = "x" }), "label", -1, "erofs has no label"},
		{"label not UTF-8", with(base("ext4"), func(s *Spec) { s.Label = "\xff" }), "label", -1, "label is not UTF-8"},
		{"label control", with(base("ext4"), func(s *Spec) { s.Label = "a\tb" }), "label", -1, "control character in label"},
		{"ext label long", with(base("ext4"), func(s *Spec) { s.Label = strings.Repeat("x", 17) }), "label", -1, "ext4 label too long"},
		{"xfs label long", with(base("xfs"), func(s *Spec) { s.Label = strings.Repeat("x", 13) }), "label", -1, "xfs label too long"},
		{"btrfs label long", with(base("btrfs"), func(s *Spec) { s.Label = strings.Repeat("x", 255) }), "label", -1, "btrfs label too long"},
		{"nilfs2 label long", with(base("nilfs2"), func(s *Spec) { s.Label = strings.Repeat("x", 81) }), "label", -1, "nilfs2 label too long"},
		{"vfat label long", with(base("vfat"), func(s *Spec) { s.Label = "ABCDEFGHIJKL" }), "label", -1, "vfat label too long"},
		{"vfat label char", with(base("vfat"), func(s *Spec) { s.Label = "A*B" }), "label", -1, "bad character in FAT label"},
		{"uuid missing", with(base("ext4"), func(s *Spec) { s.UUID = "" }), "uuid", -1, "uuid missing"},
		{"bad uuid", with(base("f2fs"), func(s *Spec) { s.UUID = "nope" }), "uuid", -1, "bad uuid"},
		{"block size", with(base("f2fs"), func(s *Spec) { s.BlockSize = 8192 }), "block_size", -1, "unsupported f2fs block size"},
		{"nilfs2 block size", with(base("nilfs2"), func(s *Spec) { s.BlockSize = 8192 }), "block_size", -1, "unsupported nilfs2 block size"},
		{"no features", featured("xfs", "reflink"), "features", 0, "xfs has no features"},
		{"empty feature", featured("ext4", "^"), "features", 0, "empty feature"},
		{"unknown feature", featured("ext4", "metadata_crc"), "features", 0, "unknown ext4 feature"},
		{"feature twice", featured("ext4", "metadata_csum", "^metadata_csum"), "features", 1, "feature given twice"},
		{"journal on ext2", journal("ext2", true), "journal", -1, "ext2 has no journal"},
		{"no journal on ext3", journal("ext3", false), "journal", -1, "ext3 requires a journal"},
		{"no journal on xfs", journal("xfs", false), "journal", -1, "xfs requires a journal"},
		{"unknown tuning", tuned("ext4", "strides", int64(4)), "tuning.strides", -1, "unknown ext4 tuning"},
		{"bad tuning type", tuned("ext4", "stride", "four"), "tuning.stride", -1, "bad ext4 stride"},
		{"tuning too large", tuned("ext4", "stride", int64(65536)), "tuning.stride", -1, "ext4 stride too large"},
		{"tuning too small", tuned("ext4", "inode_size", int64(64)), "tuning.inode_size", -1, "ext4 inode_size too small"},
		{"negative erase block", erase("ext4", -4096), "geometry.erase_block", -1, "negative erase block"},
		{"erase block not sectors", erase("ext4", 4*units.MiB+100), "geometry.erase_block", -1, "erase block not in sectors"},
		{"negative page", with(base("ext4"), func(s *Spec) { s.Geometry.PageSize = -1 }), "geometry.page_size", -1, "negative page size"},
		{"page not power of two", with(base("ext4"), func(s *Spec) { s.Geometry.PageSize = 12288 }), "geometry.page_size", -1, "page size not a power of two"},
		{"erase not whole pages", with(erase("ext4", 6*units.MiB), func(s *Spec) { s.Geometry.PageSize = 4 * units.MiB }), "geometry.erase_block", -1, "erase block not whole pages"},
		{"erase not whole blocks", erase("ext4", 6*units.KiB), "geometry.erase_block", -1, "erase block not whole blocks"},

		// Mount options.
		{"empty option", mounted("ext4", " "), "mount", 0, "empty mount option"},
		{"two in one", mounted("ext4", "noatime,discard"), "mount", 0, "several options in one element"},
		{"unknown option", mounted("ext4", "noatim"), "mount", 0, "unknown ext4 mount option"},
		{"ext2 has no commit", mounted("ext2", "commit=5"), "mount", 0, "unknown ext2 mount option"},
		{"ext3 has no delalloc", mounted("ext3", "delalloc"), "mount", 0, "unknown ext3 mount option"},
		{"duplicate", mounted("ext4", "noatime", "noatime"), "mount", 1, "duplicate mount option"},
		{"same state", mounted("ext4", "barrier", "barrier=1"), "mount", 1, "duplicate mount option"},
		{"synonyms", mounted("ext4", "grpid", "bsdgroups"), "mount", 1, "duplicate mount option"},
		{"contradiction", mounted("ext4", "barrier", "nobarrier"), "mount", 1, "conflicting mount options"},
		{"barrier=0 vs barrier", mounted("ext4", "barrier=0", "barrier"), "mount", 1, "conflicting mount options"},
		{"data modes", mounted("ext4", "data=ordered", "data=writeback"), "mount", 1, "conflicting mount options"},
		{"ro rw", mounted("f2fs", "ro", "rw"), "mount", 1, "conflicting mount options"},
		{"atime modes", mounted("btrfs", "noatime", "strictatime"), "mount", 1, "conflicting mount options"},
		{"atime flag", mounted("xfs", "noatime", "atime"), "mount", 1, "conflicting mount options"},
		{"atime flag first", mounted("xfs", "atime", "noatime"), "mount", 1, "conflicting mount options"},
		{"needs value", mounted("ext4", "commit"), "mount", 0, "bad ext4 mount option commit"},
		{"takes no value", mounted("ext4", "noatime=1"), "mount", 0, "bad ext4 mount option noatime"},
		{"no value after =", mounted("ext4", "commit="), "mount", 0, "bad ext4 mount option commit"},
		{"not a number", mounted("ext4", "commit=soon"), "mount", 0, "bad ext4 mount option commit"},
		{"out of range", mounted("ext4", "journal_ioprio=8"), "mount", 0, "bad ext4 mount option journal_ioprio"},
		{"not power of two", mounted("ext4", "inode_readahead_blks=24"), "mount", 0, "bad ext4 mount option inode_readahead_blks"},
		{"bad int", mounted("vfat", "time_offset=-x"), "mount", 0, "bad vfat mount option time_offset"},
		{"bad octal", mounted("vfat", "umask=0999"), "mount", 0, "bad vfat mount option umask"},
		{"bad size", mounted("xfs", "allocsize=64q"), "mount", 0, "bad xfs mount option allocsize"},
		{"size not power of two", mounted("xfs", "allocsize=96k"), "mount", 0, "bad xfs mount option allocsize"},
		{"bad enum", mounted("ext4", "data=unordered"), "mount", 0, "bad ext4 mount option data"},
		{"bad bool", mounted("vfat", "utf8=maybe"), "mount", 0, "bad vfat mount option utf8"},
		{"bad btrfs compress", mounted("btrfs", "compress=zstd:16"), "mount", 0, "bad btrfs mount option compress"},
		{"bad btrfs compress alg", mounted("btrfs", "compress=xz"), "mount", 0, "bad btrfs mount option compress"},
		{"lzo has no level", mounted("btrfs", "compress=lzo:3"), "mount", 0, "bad btrfs mount option compress"},
		{"bad btrfs rescue", mounted("btrfs", "rescue=all:fixit"), "mount", 0, "bad btrfs mount option rescue"},
		{"bad f2fs checkpoint", mounted("f2fs", "checkpoint=pause"), "mount", 0, "bad f2fs mount option checkpoint"},
		{"bad f2fs compress", mounted("f2fs", "compress_algorithm=zstd:30"), "mount", 0, "bad f2fs mount option compress_algorithm"},
		{"bad f2fs compress alg", mounted("f2fs", "compress_algorithm=xz"), "mount", 0, "bad f2fs mount option compress_algorithm"},
		{"f2fs lzo level", mounted("f2fs", "compress_algorithm=lzo:3"), "mount", 0, "bad f2fs mount option compress_algorithm"},
		{"bad squashfs threads", mounted("squashfs", "threads=many"), "mount", 0, "bad squashfs mount option threads"},
		{"xfs barrier", mounted("xfs", "barrier"), "mount", 0, "xfs refuses barrier"},
		{"xfs nobarrier", mounted("xfs", "nobarrier"), "mount", 0, "xfs refuses nobarrier"},
		{"xfs ikeep", mounted("xfs", "ikeep"), "mount", 0, "xfs refuses ikeep"},
		{"xfs attr2", mounted("xfs", "attr2"), "mount", 0, "xfs ignores attr2"},
		{"ext4 noacl", mounted("ext4", "noacl"), "mount", 0, "ext4 refuses noacl"},
		{"ext2 xip", mounted("ext2", "xip"), "mount", 0, "ext2 refuses xip"},
		{"ext4 nobh", mounted("ext4", "nobh"), "mount", 0, "ext4 ignores nobh"},
		{"mand", mounted("ext4", "mand"), "mount", 0, "ext4 ignores mand"},
		{"btrfs nologreplay", mounted("btrfs", "nologreplay"), "mount", 0, "btrfs deprecates nologreplay"},
		{"btrfs check_int", mounted("btrfs", "check_int"), "mount", 0, "btrfs refuses check_int"},
		{"btrfs inode_cache", mounted("btrfs", "inode_cache"), "mount", 0, "btrfs ignores inode_cache"},
		{"f2fs heap", mounted("f2fs", "heap"), "mount", 0, "f2fs deprecates heap"},
		{"vfat nocase", mounted("vfat", "nocase"), "mount", 0, "vfat deprecates nocase"},
		{"btrfs discard modes", mounted("btrfs", "discard=async", "discard"), "mount", 1, "conflicting mount options"},
		{"btrfs nossd_spread", mounted("btrfs", "ssd_spread", "nossd_spread"), "mount", 1, "conflicting mount options"},
		{"ext4 no journal data", with(journal("ext4", false), func(s *Spec) { s.Mount = []string{"data=journal"} }), "mount", 0, "ext4 without journal refuses data"},
		{"ext4 no journal commit", with(journal("ext4", false), func(s *Spec) { s.Mount = []string{"commit=60"} }), "mount", 0, "ext4 without journal refuses commit"},
		{"async commit ordered", mounted("ext4", "journal_async_commit"), "mount", 0, "journal_async_commit needs data=writeback or data=journal"},
		{"data=journal delalloc", mounted("ext4", "data=journal", "delalloc"), "mount", 1, "data=journal refuses delalloc"},
		{"data=journal dax", mounted("ext4", "data=journal", "dax"), "mount", 1, "data=journal refuses dax"},
		{"data=journal dioread", mounted("ext4", "data=journal", "dioread_nolock"), "mount", 1, "data=journal ignores dioread_nolock"},

		// ext.
		{"ext tiny", with(sized("ext4", 2*units.MiB), func(s *Spec) { s.BlockSize = 65536; s.Journal = new(bool) }), "size", -1, "ext4 partition too small"},
		{"ext3 no room for journal", sized("ext3", 2047*4096), "size", -1, "ext3 too small for a journal"},
		{"has_journal on ext2", featured("ext2", "has_journal"), "features", 0, "ext2 has no journal"},
		{"^has_journal on ext3", featured("ext3", "^has_journal"), "features", 0, "ext3 requires a journal"},
		{"features vs journal", with(journal("ext4", true), func(s *Spec) { s.Features = []string{"^has_journal"} }), "features", 0, "features contradict journal"},
		{"ext4 feature on ext3", featured("ext3", "extent"), "features", 0, "extent needs ext4"},
		{"meta_bg", featured("ext4", "meta_bg"), "features", 0, "meta_bg needs ^resize_inode"},
		{"^sparse_super", featured("ext4", "^sparse_super"), "features", 0, "ext4 ^sparse_super needs ^resize_inode"},
		{"^extent", featured("ext4", "dir_index", "^extent"), "features", 1, "ext4 64bit needs extent"},
		{"bigalloc ^extent", featured("ext4", "bigalloc", "^extents", "^64bit"), "features", 0, "ext4 bigalloc needs extent"},
		{"csum seed", featured("ext4", "^metadata_csum", "metadata_csum_seed"), "features", 1, "ext4 metadata_csum_seed needs metadata_csum"},
		{"orphan_file", with(journal("ext4", false), func(s *Spec) { s.Features = []string{"orphan_file"} }), "features", 0, "ext4 orphan_file needs has_journal"},
		{"inline_data 128", with(tuned("ext4", "inode_size", int64(128)), func(s *Spec) { s.Features = []string{"inline_data"} }), "tuning.inode_size", -1, "128-byte inodes too small for inline_data"},
		{"project 128", with(tuned("ext4", "inode_size", int64(128)), func(s *Spec) { s.Features = []string{"project"} }), "tuning.inode_size", -1, "128-byte inodes too small for project"},
		{"inode ratio", tuned("ext4", "inode_size", int64(1024), "inode_ratio", int64(1024)), "tuning.inode_ratio", -1, "ext4 inodes fill the filesystem"},
		{"inode size from conf ratio", with(tuned("ext4", "inode_size", int64(4096)), func(s *Spec) { s.Size = 64 * units.MiB }), "tuning.inode_size", -1, "ext4 inodes fill the filesystem"},
		{"inode > block", with(tuned("ext4", "inode_size", int64(2048)), func(s *Spec) { s.BlockSize = 1024 }), "tuning.inode_size", -1, "ext inode larger than a block"},
		{"flex_bg_size without flex_bg", with(tuned("ext4", "flex_bg_size", int64(16)), func(s *Spec) { s.Features = []string{"^flex_bg"} }), "tuning.flex_bg_size", -1, "flex_bg_size without flex_bg"},
		{"journal_size on ext2", tuned("ext2", "journal_size", int64(4*units.MiB)), "tuning.journal_size", -1, "unknown ext2 tuning"},
		{"journal_size without journal", with(tuned("ext4", "journal_size", int64(8*units.MiB)), func(s *Spec) { s.Journal = new(bool) }), "tuning.journal_size", -1, "journal_size without a journal"},
		{"journal too small", tuned("ext4", "journal_size", int64(2*units.MiB)), "tuning.journal_size", -1, "ext journal size out of range"},
		{"journal too large", tuned("ext4", "journal_size", int64(256*units.MiB)), "tuning.journal_size", -1, "ext journal too large"},
		{"journal not whole MiB", tuned("ext4", "journal_size", int64(4*units.MiB+4096)), "tuning.journal_size", -1, "bad ext4 journal_size"},
		{"derived stride too large", erase("ext4", 512*units.MiB), "geometry.erase_block", -1, "ext4 stride too large"},

		// btrfs.
		{"btrfs node < block", with(tuned("btrfs", "nodesize", int64(4096)), func(s *Spec) { s.BlockSize = 16384 }), "tuning.nodesize", -1, "btrfs node smaller than a block"},
		{"btrfs node not power of two", tuned("btrfs", "nodesize", int64(12288)), "tuning.nodesize", -1, "bad btrfs nodesize"},
		{"btrfs mixed node", tuned("btrfs", "mixed", true, "nodesize", int64(16384)), "tuning.nodesize", -1, "btrfs mixed needs nodesize = block size"},
		{"btrfs mixed profiles", tuned("btrfs", "mixed", true, "metadata_profile", "dup", "data_profile", "single"), "tuning.data_profile", -1, "btrfs mixed needs one profile"},
		{"btrfs dup/dup small", with(tuned("btrfs", "data_profile", "dup"), func(s *Spec) { s.Size = 200 * units.MiB }), "size", -1, "btrfs partition too small"},
		{"btrfs raid", tuned("btrfs", "data_profile", "raid1"), "tuning.data_profile", -1, "bad btrfs data_profile"},

		// f2fs.
		{"f2fs small", sized("f2fs", 51*units.MiB), "size", -1, "f2fs partition too small"},
		{"f2fs sections from erase block", with(erase("f2fs", 32*units.MiB), func(s *Spec) { s.Size = 584 * units.MiB }), "geometry.erase_block", -1, "f2fs sections too large for the volume"},
		{"f2fs sections from tuning", with(tuned("f2fs", "segs_per_section", int64(16)), func(s *Spec) { s.Size = 584 * units.MiB }), "tuning.segs_per_section", -1, "f2fs sections too large for the volume"},
		{"f2fs extension", tuned("f2fs", "cold_extensions", []any{"mp3", "toolongext"}), "tuning.cold_extensions", -1, "bad f2fs extension"},
		{"f2fs cold extensions", tuned("f2fs", "cold_extensions", extensions("c", 25)), "tuning.cold_extensions", -1, "too many f2fs extensions"},
		{"f2fs hot extensions", tuned("f2fs", "cold_extensions", extensions("c", 20), "hot_extensions", extensions("h", 5)), "tuning.hot_extensions", -1, "too many f2fs extensions"},
		{"f2fs ^feature", featured("f2fs", "^quota"), "features", 0, "f2fs features cannot be disabled"},
		{"f2fs extra_attr", featured("f2fs", "inode_checksum"), "features", 0, "inode_checksum needs extra_attr"},

		// xfs.
		{"xfs su from erase block", erase("xfs", 32*units.MiB), "geometry.erase_block", -1, "xfs stripe unit too large"},
		{"xfs su tuning", tuned("xfs", "su", int64(32*units.MiB)), "tuning.su", -1, "xfs su too large"},
		{"xfs su not blocks", tuned("xfs", "su", int64(6*units.KiB)), "tuning.su", -1, "xfs stripe unit not whole blocks"},
		{"xfs log in AG", tuned("xfs", "agcount", int64(8)), "tuning.agcount", -1, "xfs log does not fit in an allocation group"},
		{"xfs big log", tuned("xfs", "log_size", int64(200*units.MiB)), "tuning.log_size", -1, "xfs log does not fit in an allocation group"},
		{"xfs crc", tuned("xfs", "crc", false, "reflink", true), "tuning.reflink", -1, "xfs reflink needs crc"},
		{"xfs inobtcount", tuned("xfs", "inobtcount", true, "finobt", false), "tuning.inobtcount", -1, "xfs inobtcount needs finobt"},
		{"xfs inode small", tuned("xfs", "inode_size", int64(256)), "tuning.inode_size", -1, "xfs inode too small"},
		{"xfs inode large", with(tuned("xfs", "inode_size", int64(1024)), func(s *Spec) { s.BlockSize = 1024 }), "tuning.inode_size", -1, "xfs inode too large"},

		// nilfs2.
		{"nilfs2 segment mismatch", erase("nilfs2", 6*units.MiB), "geometry.erase_block", -1, "nilfs2 segment cannot match the erase block"},
		{"nilfs2 segment too short", erase("nilfs2", 32*units.KiB), "geometry.erase_block", -1, "nilfs2 segment cannot match the erase block"},
		{"nilfs2 small", sized("nilfs2", 100*units.MiB), "size", -1, "nilfs2 partition too small for its segments"},
		{"nilfs2 small for erase block", with(erase("nilfs2", 16*units.MiB), func(s *Spec) { s.Size = 200 * units.MiB }), "geometry.erase_block", -1, "nilfs2 partition too small for its segments"},
		{"nilfs2 small for tuning", with(tuned("nilfs2", "blocks_per_segment", int64(8192)), func(s *Spec) { s.Size = 300 * units.MiB }), "tuning.blocks_per_segment", -1, "nilfs2 partition too small for its segments"},
		{"nilfs2 B not power of two", tuned("nilfs2", "blocks_per_segment", int64(24)), "tuning.blocks_per_segment", -1, "bad nilfs2 blocks_per_segment"},

		// vfat.
		{"vfat small", sized("vfat", 49*units.KiB), "size", -1, "vfat partition too small"},
		{"FAT12 large", tuned("vfat", "fat_size", "12"), "tuning.fat_size", -1, "FAT12 does not fit the partition"},
		{"FAT16 clusters", with(tuned("vfat", "fat_size", "16"), func(s *Spec) { s.Size = 64 * units.MiB; s.BlockSize = 32 * units.KiB }), "block_size", -1, "FAT16 cluster count out of range"},
		{"FAT16 edge", with(tuned("vfat", "fat_size", "16"), func(s *Spec) { s.Size = 4085*4096 + 40*512; s.BlockSize = 4096 }), "block_size", -1, "FAT16 cluster count at its limit"},
		{"auto FAT16 clusters", with(base("vfat"), func(s *Spec) { s.Size = 64 * units.MiB; s.BlockSize = 512 }), "block_size", -1, "FAT16 cluster count out of range"},
		{"auto FAT32 clusters", with(base("vfat"), func(s *Spec) { s.BlockSize = 32 * units.KiB }), "block_size", -1, "FAT32 cluster count out of range"},
		{"FAT32 root entries", tuned("vfat", "fat_size", "32", "root_entries", int64(512)), "tuning.root_entries", -1, "FAT32 has no fixed root directory"},
		{"root entries", tuned("vfat", "root_entries", int64(32769)), "tuning.root_entries", -1, "vfat root_entries too large"},
		{"FAT name", files("vfat", "/EFI/BOOT/a?b"), "files", 0, "vfat cannot keep the file name"},
		{"FAT emoji", files("vfat", "/ok", "/smile-😀"), "files", 1, "vfat cannot keep the file name"},
		{"FAT case", files("vfat", "/d/README", "/D/readme"), "files", 1, "vfat names differ only in case"},
		{"FAT case of a directory", files("vfat", "/EFI/", "/efi"), "files", 1, "vfat names differ only in case"},
		{"xfs name", files("xfs", "/etc/a b"), "files", 0, "xfs cannot keep the file name"},

		// squashfs and erofs.
		{"squashfs lzma", tuned("squashfs", "compression", "lzma"), "tuning.compression", -1, "bad squashfs compression"},
		{"squashfs xz level", tuned("squashfs", "compression", "xz", "compression_level", int64(5)), "tuning.compression_level", -1, "squashfs xz has no level"},
		{"squashfs gzip level", tuned("squashfs", "compression_level", int64(12)), "tuning.compression_level", -1, "squashfs compression level too high"},
		{"erofs level", tuned("erofs", "compression", "lz4", "compression_level", int64(5)), "tuning.compression_level", -1, "erofs compression level needs lz4hc"},
		{"erofs pcluster", tuned("erofs", "pcluster_size", int64(65536)), "tuning.pcluster_size", -1, "erofs pcluster_size needs compression"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, probs := Resolve(c.spec)
			for _, p := range probs {
				// Summaries are capitalised unless they start with a
				// filesystem's name; the cases are written in lower case.
				if p.Field == c.field && p.Index == c.index && strings.Contains(strings.ToLower(p.Summary), strings.ToLower(c.summary)) {
					if p.Detail == "" {
						t.Errorf("problem without detail: %+v", p)
					}
					return
				}
			}
			t.Errorf("want %s[%d] %q, got %+v", c.field, c.index, c.summary, probs)
		})
	}
}

// TestProblemsNameTheFix: every detail is a sentence with numbers or names
// the user can act on, never an empty string.
func TestProblemsNameTheFix(t *testing.T) {
	_, probs := Resolve(erase("ext4", 512*units.MiB))
	if len(probs) != 1 {
		t.Fatalf("%+v", probs)
	}
	d := probs[0].Detail
	for _, want := range []string{"512MiB", "4KiB", "131072", "65535", "tuning.stride"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail %q lacks %q", d, want)
		}
	}
}

func TestUnknownNamesGetSuggestions(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{base("exf4"), `"ext4"`},
		{mounted("ext4", "noatim"), `"noatime"`},
		{tuned("f2fs", "segs_per_sectoin", int64(2)), `"segs_per_section"`},
		{featured("ext4", "metadata_csun"), `"metadata_csum"`},
	} {
		_, probs := Resolve(c.spec)
		if len(probs) == 0 || !strings.Contains(probs[0].Detail, "Did you mean "+c.want) {
			t.Errorf("%+v: want a suggestion of %s", probs, c.want)
		}
	}
}
