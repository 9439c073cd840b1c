package filesystems

import (
	"encoding/binary"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
)

// These tests run the resolved commands with the real tools: each type is
// built twice from two stagings of the same tree. Where the catalogue claims
// determinism the SHA-256 must match, and a build with another epoch must
// not (the negative control); where it does not, the two builds must differ,
// so that the claim is re-examined when a tool changes. Every image then
// passes its own checker. The negative control changes the UUID, or the
// epoch for squashfs, which has no UUID.

const testUUID = "0b5c2a44-5d0e-4e8f-9a61-3c7d2b9e4f10"

func testSpec(typ string) Spec {
	return Spec{
		Type: typ, UUID: testUUID, Size: 512 * units.MiB,
		Geometry:    Geometry{EraseBlock: 4 * units.MiB},
		HasContents: true,
	}
}

func checkBuild(t *testing.T, s Spec, spaces bool) string {
	t.Helper()
	typ, ok := Lookup(s.Type)
	if !ok {
		t.Fatalf("no type %s", s.Type)
	}
	testenv.Tools(t, typ.Tools...)
	r, probs := Resolve(s)
	if len(probs) > 0 {
		t.Fatalf("Resolve: %+v", probs)
	}
	img1, sum1 := buildImage(t, s, r, stage(t, spaces), testEpoch)
	// Stage again in a later second, so that ctimes, which no stager can
	// set and some tools copy, differ between the two trees.
	for now := time.Now().Unix(); time.Now().Unix() == now; {
		time.Sleep(10 * time.Millisecond)
	}
	_, sum2 := buildImage(t, s, r, stage(t, spaces), testEpoch)
	switch {
	case r.Deterministic && sum1 != sum2:
		t.Errorf("%s claims to be deterministic, but two builds differ: %s and %s", s.Type, sum1, sum2)
	case !r.Deterministic && sum1 == sum2:
		t.Errorf("%s claims not to be deterministic, but two builds are identical (%s); update the catalogue", s.Type, sum1)
	}
	if r.Deterministic {
		s3, epoch := s, int64(testEpoch)
		if typ.SetsUUID {
			s3.UUID = "7f1e0c2d-3b4a-4c5d-8e6f-a0b1c2d3e4f5"
		} else {
			epoch++
		}
		r3, _ := Resolve(s3)
		if _, sum3 := buildImage(t, s3, r3, stage(t, spaces), epoch); sum3 == sum1 {
			t.Errorf("negative control: a build with another UUID or epoch has the same SHA-256 %s", sum1)
		}
	}
	if len(r.Check.Argv) > 0 {
		argv := append(append([]string(nil), r.Check.Argv[:len(r.Check.Argv)-1]...), img1)
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", argv, err, out)
		}
	}
	return img1
}

func TestMkfsExt2(t *testing.T) { checkBuild(t, testSpec("ext2"), true) }
func TestMkfsExt3(t *testing.T) { checkBuild(t, testSpec("ext3"), true) }

func TestMkfsExt4(t *testing.T) {
	s := testSpec("ext4")
	s.Label = "rootfs"
	s.Tuning = map[string]any{"inode_size": int64(256), "lazy_itable_init": false}
	checkBuild(t, s, true)
	noJournal := false
	s.Journal = &noJournal
	checkBuild(t, s, true)
}

func TestMkfsBtrfs(t *testing.T) {
	s := testSpec("btrfs")
	s.Label = "rootfs"
	checkBuild(t, s, true)
}

func TestMkfsF2FS(t *testing.T) {
	s := testSpec("f2fs")
	s.Label = "rootfs"
	checkBuild(t, s, true)
}

// TestMkfsF2FSPartialZone: sections of two segments (a 4MiB erase block)
// on a volume that ends inside a section, which mkfs.f2fs 1.15.0 alone
// lays out so that its fsck fails: fsbench gives it the whole sections.
func TestMkfsF2FSPartialZone(t *testing.T) {
	s := testSpec("f2fs")
	s.Size = 318 * units.MiB
	s.HasContents = false
	checkBuild(t, s, true)
	// 79 sections of 4MiB: 316MiB, in 512-byte sectors.
	r, _ := Resolve(s)
	if argv := r.Mkfs.Argv; argv[len(argv)-1] != "647168" {
		t.Errorf("mkfs argv %q does not end in the whole sections' 647168 sectors", argv)
	}
	s.Size = 320 * units.MiB
	if r, _ := Resolve(s); r.Mkfs.Argv[len(r.Mkfs.Argv)-1] != "{image}" {
		t.Errorf("a volume of whole sections is given a size: %q", r.Mkfs.Argv)
	}
}

func TestMkfsXFS(t *testing.T) {
	s := testSpec("xfs")
	s.Label = "rootfs"
	checkBuild(t, s, false)
}

func TestMkfsNILFS2(t *testing.T) {
	s := testSpec("nilfs2")
	s.HasContents = false // nilfs2 has no offline populate
	s.Label = "rootfs"
	img := checkBuild(t, s, true)
	// No fsck and no nilfs2 in the host kernel: check the superblock by
	// hand (include/uapi/linux/nilfs2_ondisk.h, at byte 1024).
	f, err := os.Open(img)
	must(t, err)
	defer f.Close()
	sb := make([]byte, 64)
	_, err = f.ReadAt(sb, 1024)
	must(t, err)
	if magic := binary.LittleEndian.Uint16(sb[6:]); magic != 0x3434 {
		t.Errorf("nilfs2 magic is %#x, want 0x3434", magic)
	}
	if bps := binary.LittleEndian.Uint32(sb[48:]); bps != 1024 {
		t.Errorf("s_blocks_per_segment is %d, want 1024 (4MiB erase block / 4KiB)", bps)
	}
}

func TestMkfsVFAT(t *testing.T) {
	s := testSpec("vfat")
	s.Size = 64 * units.MiB
	s.Label = "BOOT"
	checkBuild(t, s, true)
}

func TestMkfsSquashfs(t *testing.T) {
	s := testSpec("squashfs")
	s.Tuning = map[string]any{"compression": "xz"}
	checkBuild(t, s, true)
}

func TestMkfsEROFS(t *testing.T) {
	s := testSpec("erofs")
	s.Tuning = map[string]any{"compression": "lz4hc", "compression_level": int64(9)}
	checkBuild(t, s, true)
}

// TestEveryKnobBuilds sets most tuning knobs of each type at once and
// builds, so that every option fsbench writes is one the tool takes.
func TestEveryKnobBuilds(t *testing.T) {
	specs := []Spec{
		{Type: "ext4", Tuning: map[string]any{"inode_size": int64(512), "inode_ratio": int64(8192),
			"reserved_percent": 0.5, "stride": int64(128), "stripe_width": int64(256), "lazy_itable_init": false,
			"lazy_journal_init": false, "packed_meta_blocks": true, "errors": "remount-ro",
			"journal_size": int64(16 * units.MiB), "flex_bg_size": int64(32)},
			Features: []string{"^metadata_csum", "fast_commit"}},
		{Type: "ext3", Tuning: map[string]any{"journal_size": int64(8 * units.MiB), "reserved_percent": 1.0}},
		{Type: "btrfs", Tuning: map[string]any{"nodesize": int64(16384), "metadata_profile": "single",
			"data_profile": "dup", "checksum": "xxhash"}, Features: []string{"^no-holes", "quota"}},
		{Type: "btrfs", Tuning: map[string]any{"mixed": true}},
		{Type: "f2fs", Tuning: map[string]any{"segs_per_section": int64(4), "sections_per_zone": int64(2),
			"overprovision": 7.5, "cold_extensions": []any{"mkv", "jpg"}, "hot_extensions": []any{"db"}, "heap": true},
			Features: []string{"extra_attr", "inode_checksum", "sb_checksum", "compression"}},
		{Type: "xfs", Tuning: map[string]any{"agcount": int64(4), "su": int64(units.MiB), "sw": int64(2),
			"log_size": int64(64 * units.MiB), "inode_size": int64(1024), "reflink": false, "rmapbt": true,
			"bigtime": true, "inobtcount": true, "finobt": true, "sparse": true}},
		{Type: "xfs", Tuning: map[string]any{"crc": false, "inode_size": int64(256), "reflink": false}},
		{Type: "nilfs2", BlockSize: 2048, Tuning: map[string]any{"blocks_per_segment": int64(4096),
			"reserved_segments_percent": int64(10)}, Features: []string{"block_count"}},
		{Type: "vfat", Size: 256 * units.MiB, BlockSize: 8192, Tuning: map[string]any{"fat_size": "16", "fat_count": int64(1), "root_entries": int64(1024)}},
		{Type: "vfat", Size: 256 * units.MiB, Tuning: map[string]any{"fat_size": "32"}},
		{Type: "squashfs", BlockSize: units.MiB, Tuning: map[string]any{"compression": "zstd", "compression_level": int64(19)}},
		{Type: "erofs", Tuning: map[string]any{"compression": "lz4hc", "compression_level": int64(12),
			"pcluster_size": int64(64 * units.KiB), "ztailpacking": true}},
	}
	for _, s := range specs {
		t.Run(s.Type, func(t *testing.T) {
			typ, _ := Lookup(s.Type)
			testenv.Tools(t, typ.Tools...)
			s.UUID = testUUID
			if s.Size == 0 {
				s.Size = 512 * units.MiB
			}
			s.HasContents = typ.Populate != PopulateNone
			r, probs := Resolve(s)
			if len(probs) > 0 {
				t.Fatalf("%+v", probs)
			}
			img, _ := buildImage(t, s, r, stage(t, typ.Populate != PopulateProtofile), testEpoch)
			if len(r.Check.Argv) > 0 {
				argv := append(append([]string(nil), r.Check.Argv[:len(r.Check.Argv)-1]...), img)
				if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
					t.Errorf("%v: %v\n%s", argv, err, out)
				}
			}
		})
	}
}
