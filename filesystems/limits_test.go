package filesystems

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
)

// These tests hold the catalogue's limits against the real tools, so that
// a tool upgrade that moves a limit fails here rather than in a build.

func sparse(t *testing.T, n int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.img")
	f, err := os.Create(p)
	must(t, err)
	must(t, f.Truncate(n))
	must(t, f.Close())
	return p
}

func tool(t *testing.T, argv ...string) error {
	t.Helper()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// resolvedArgv resolves s and substitutes {image} and {epoch}.
func resolvedArgv(t *testing.T, s Spec, img string) []string {
	t.Helper()
	r, probs := Resolve(s)
	if len(probs) > 0 {
		t.Fatalf("Resolve(%+v): %+v", s, probs)
	}
	var argv []string
	for _, a := range r.Mkfs.Argv {
		argv = append(argv, substitute(a, map[string]string{"{image}": img, "{epoch}": fmt.Sprint(testEpoch)}))
	}
	return argv
}

// TestExtStrideIsSixteenBits shows why fsbench refuses strides above 65535:
// mke2fs 1.47.0 accepts them and stores the low 16 bits.
func TestExtStrideIsSixteenBits(t *testing.T) {
	testenv.Tools(t, "mke2fs")
	for _, c := range []struct{ given, stored uint16 }{{65535, 65535}} {
		img := sparse(t, 256*units.MiB)
		if err := tool(t, "mke2fs", "-q", "-F", "-t", "ext4", "-E", fmt.Sprintf("stride=%d", c.given), img); err != nil {
			t.Fatal(err)
		}
		if got := extRaidStride(t, img); got != c.stored {
			t.Errorf("stride=%d stored as %d", c.given, got)
		}
	}
	img := sparse(t, 256*units.MiB)
	if err := tool(t, "mke2fs", "-q", "-F", "-t", "ext4", "-E", "stride=65536", img); err != nil {
		t.Fatalf("mke2fs now refuses stride=65536 (%v); the catalogue's reason for the 16-bit check changed", err)
	}
	if got := extRaidStride(t, img); got != 0 {
		t.Errorf("stride=65536 stored as %d, expected the silent truncation to 0", got)
	}
	s := testSpec("ext4")
	s.Tuning = map[string]any{"stride": int64(65536)}
	assertProblem(t, s, "tuning.stride", "ext4 stride too large")
	s = testSpec("ext4")
	s.Geometry.EraseBlock = 512 * units.MiB
	assertProblem(t, s, "geometry.erase_block", "ext4 stride too large")
}

func withImage(argv []string, img string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "{image}", img)
	}
	return out
}

func extRaidStride(t *testing.T, img string) uint16 {
	t.Helper()
	f, err := os.Open(img)
	must(t, err)
	defer f.Close()
	b := make([]byte, 2)
	_, err = f.ReadAt(b, 1024+0x164) // s_raid_stride
	must(t, err)
	return binary.LittleEndian.Uint16(b)
}

// TestExtJournalNeeds2048Blocks: below 2048 blocks mke2fs leaves the journal
// out and still succeeds, so fsbench refuses such an ext3.
func TestExtJournalNeeds2048Blocks(t *testing.T) {
	testenv.Tools(t, "mke2fs", "dumpe2fs")
	for _, c := range []struct {
		blocks  int64
		journal bool
	}{{2047, false}, {2048, true}} {
		img := sparse(t, c.blocks*4096)
		if err := tool(t, "mke2fs", "-q", "-F", "-t", "ext3", "-b", "4096", img); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("dumpe2fs", "-h", img).Output()
		must(t, err)
		if got := strings.Contains(string(out), "has_journal"); got != c.journal {
			t.Errorf("%d blocks: journal %t, want %t", c.blocks, got, c.journal)
		}
	}
	s := testSpec("ext3")
	s.HasContents, s.Geometry = false, Geometry{}
	s.Size = 2047 * 4096
	assertProblem(t, s, "size", "ext3 too small for a journal")
	s.Size = 2048 * 4096
	assertNoProblems(t, s)
}

// TestExtMinSizeWorks: the conservative ext minimum builds with every block
// size.
func TestExtMinSizeWorks(t *testing.T) {
	testenv.Tools(t, "mke2fs")
	typ, _ := Lookup("ext2")
	for _, bs := range typ.BlockSizes {
		for _, name := range []string{"ext2", "ext4"} {
			s := Spec{Type: name, UUID: testUUID, BlockSize: bs, Size: max(units.MiB, 64*bs), Journal: new(bool)}
			if name == "ext2" {
				s.Journal = nil
			}
			if err := tool(t, withImage(resolvedArgv(t, s, "{image}"), sparse(t, s.Size))...); err != nil {
				t.Errorf("%s with %s blocks at %s: %v", name, size(bs), size(s.Size), err)
			}
		}
	}
}

// TestMinSizeIsTheToolsLimit builds at each type's smallest accepted size
// and one step below it.
func TestMinSizeIsTheToolsLimit(t *testing.T) {
	nilfs := Spec{Type: "nilfs2", BlockSize: 1024, Tuning: map[string]any{
		"blocks_per_segment": int64(16), "reserved_segments_percent": int64(1)}}
	mixed := Spec{Type: "btrfs", UUID: testUUID, Tuning: map[string]any{"mixed": true}}
	for _, c := range []struct {
		s     Spec
		min   int64
		below int64
	}{
		{Spec{Type: "xfs", UUID: testUUID}, 300 * units.MiB, 4096},
		{Spec{Type: "f2fs", UUID: testUUID}, 52 * units.MiB, units.MiB},
		{mixed, 16 * units.MiB, units.MiB},
		{Spec{Type: "btrfs", UUID: testUUID}, 109 * units.MiB, units.MiB},
		{nilfs, nilfsMinSize(1024, 16, 1), 1024},
		{Spec{Type: "vfat", UUID: testUUID}, 50 * units.KiB, units.KiB},
		{Spec{Type: "vfat", UUID: testUUID, Tuning: map[string]any{"fat_size": "32"}}, 49 * units.KiB, units.KiB},
	} {
		typ, _ := Lookup(c.s.Type)
		t.Run(fmt.Sprintf("%s/%s", c.s.Type, size(c.min)), func(t *testing.T) {
			testenv.Tools(t, typ.Tool)
			s := c.s
			s.Size = c.min
			argv := resolvedArgv(t, s, "{image}")
			if err := tool(t, withImage(argv, sparse(t, s.Size))...); err != nil {
				t.Errorf("at the minimum %s: %v", size(c.min), err)
			}
			s.Size = c.min - c.below
			if _, probs := Resolve(s); len(probs) == 0 {
				t.Errorf("Resolve accepts %d bytes, below the minimum", s.Size)
			}
			if err := tool(t, withImage(argv, sparse(t, s.Size))...); err == nil {
				t.Errorf("%s accepts %d bytes, so %s is not its minimum", typ.Tool, s.Size, size(c.min))
			}
		})
	}
}

// TestBtrfsMinSizes holds the profile table against mkfs.btrfs.
func TestBtrfsMinSizes(t *testing.T) {
	testenv.Tools(t, "mkfs.btrfs")
	for _, p := range [][2]string{{"single", "single"}, {"dup", "single"}, {"single", "dup"}, {"dup", "dup"}} {
		min := btrfsMinSize(false, p[0], p[1], 4096)
		s := Spec{Type: "btrfs", UUID: testUUID, Size: min,
			Tuning: map[string]any{"metadata_profile": p[0], "data_profile": p[1]}}
		argv := resolvedArgv(t, s, "{image}")
		if err := tool(t, withImage(argv, sparse(t, min))...); err != nil {
			t.Errorf("%v at %s: %v", p, size(min), err)
		}
		if err := tool(t, withImage(argv, sparse(t, min-units.MiB))...); err == nil {
			t.Errorf("%v works below %s", p, size(min))
		}
	}
}

// TestBtrfsNodeSizeNotPowerOfTwo: mkfs.btrfs 6.2 formats nodesize 12288,
// which the kernel would refuse; the field's PowerOfTwo catches it.
func TestBtrfsNodeSizeNotPowerOfTwo(t *testing.T) {
	testenv.Tools(t, "mkfs.btrfs")
	if err := tool(t, "mkfs.btrfs", "-q", "-f", "-n", "12288", sparse(t, 256*units.MiB)); err != nil {
		t.Logf("mkfs.btrfs now refuses nodesize 12288: %v", err)
	}
	s := Spec{Type: "btrfs", UUID: testUUID, Size: 256 * units.MiB, Tuning: map[string]any{"nodesize": int64(12288)}}
	assertProblem(t, s, "tuning.nodesize", "bad btrfs nodesize")
}

// TestXFSStripeUnitSweep repeats, with mkfs.xfs -N (no writes), the sweep
// behind xfsMaxSU and the agcount=4 derivation, and the log rule.
func TestXFSStripeUnitSweep(t *testing.T) {
	testenv.Tools(t, "mkfs.xfs")
	for _, su := range []int64{1, 4, 6, 16} {
		for _, mib := range []int64{300, 301, 333, 444, 512, 555, 700, 1023, 2048, 8192} {
			s := Spec{Type: "xfs", UUID: testUUID, Size: mib * units.MiB, Geometry: Geometry{EraseBlock: su * units.MiB}}
			argv := resolvedArgv(t, s, sparse(t, s.Size))
			argv = append(argv[:1], append([]string{"-N"}, argv[1:]...)...)
			if err := tool(t, argv...); err != nil {
				t.Errorf("su=%dMiB on %dMiB: %v", su, mib, err)
			}
		}
	}
	// The log needs an AG of 64MiB plus headers.
	for _, c := range []struct {
		mib, ag int64
		ok      bool
	}{{512, 8, false}, {520, 8, true}, {1024, 16, false}, {1040, 16, true}} {
		s := Spec{Type: "xfs", UUID: testUUID, Size: c.mib * units.MiB, Tuning: map[string]any{"agcount": c.ag}}
		_, probs := Resolve(s)
		err := tool(t, "mkfs.xfs", "-N", "-f", "-d", fmt.Sprintf("agcount=%d", c.ag), sparse(t, s.Size))
		if (err == nil) != c.ok || (len(probs) == 0) != c.ok {
			t.Errorf("%dMiB agcount=%d: mkfs error %v, problems %v, want ok=%t", c.mib, c.ag, err, probs, c.ok)
		}
	}
}

// TestNILFS2SegmentRules holds -B and the size formula against
// mkfs.nilfs2.
func TestNILFS2SegmentRules(t *testing.T) {
	testenv.Tools(t, "mkfs.nilfs2")
	img := sparse(t, 512*units.MiB)
	for _, b := range []int64{8, 15, 17, 24, 48} {
		if tool(t, "mkfs.nilfs2", "-q", "-f", "-B", fmt.Sprint(b), img) == nil {
			t.Errorf("mkfs.nilfs2 accepts -B %d", b)
		}
	}
	for _, b := range []int64{16, 32, 1024} {
		if err := tool(t, "mkfs.nilfs2", "-q", "-f", "-B", fmt.Sprint(b), img); err != nil {
			t.Errorf("mkfs.nilfs2 -B %d: %v", b, err)
		}
	}
	for _, c := range []struct{ bs, bps, rsv int64 }{{4096, 2048, 5}, {4096, 1024, 50}, {1024, 16, 1}, {2048, 256, 99}} {
		min := nilfsMinSize(c.bs, c.bps, c.rsv)
		args := []string{"mkfs.nilfs2", "-q", "-f", "-b", fmt.Sprint(c.bs), "-B", fmt.Sprint(c.bps), "-m", fmt.Sprint(c.rsv)}
		if err := tool(t, append(args, sparse(t, min))...); err != nil {
			t.Errorf("%+v at %d: %v", c, min, err)
		}
		if tool(t, append(args, sparse(t, min-4096))...) == nil {
			t.Errorf("%+v works below %d", c, min)
		}
	}
	s := testSpec("nilfs2")
	s.HasContents = false
	s.Geometry.EraseBlock = 6 * units.MiB // 1536 blocks: not a power of two
	assertProblem(t, s, "geometry.erase_block", "nilfs2 segment cannot match the erase block")
}

// TestFATRanges holds the FAT type limits against mkfs.fat.
func TestFATRanges(t *testing.T) {
	testenv.Tools(t, "mkfs.vfat")
	for _, c := range []struct {
		fat string
		kib int64
		ok  bool
	}{
		{"12", 261695, true}, {"12", 261696, false},
		{"16", 8207, false}, {"16", 8208, true}, {"16", 4194004, true}, {"16", 4194005, false},
		{"32", 48, false}, {"32", 49, true},
	} {
		s := Spec{Type: "vfat", UUID: testUUID, Size: c.kib * units.KiB, Tuning: map[string]any{"fat_size": c.fat}}
		_, probs := Resolve(s)
		err := tool(t, "mkfs.vfat", "--invariant", "-F", c.fat, sparse(t, s.Size))
		if (err == nil) != c.ok || (len(probs) == 0) != c.ok {
			t.Errorf("FAT%s on %dKiB: mkfs error %v, problems %v, want ok=%t", c.fat, c.kib, err, probs, c.ok)
		}
	}
	for _, c := range []struct {
		fat     string
		mib     int64
		cluster int64
	}{{"12", 64, 512}, {"16", 64, 32 * units.KiB}, {"16", 64, 1024}, {"32", 256, 512}, {"12", 16, 4096},
		{"", 64, 512}, {"", 64, 4096}, {"", 64, 32 * units.KiB}, {"", 512, 32 * units.KiB}, {"", 512, 4096},
		{"", 4096, 32 * units.KiB}, {"", 1, 64 * units.KiB}} {
		s := Spec{Type: "vfat", UUID: testUUID, Size: c.mib * units.MiB, BlockSize: c.cluster,
			Tuning: map[string]any{"fat_size": c.fat}}
		args := []string{"mkfs.vfat", "--invariant", "-F", c.fat, "-s", fmt.Sprint(c.cluster / 512)}
		if c.fat == "" {
			delete(s.Tuning, "fat_size")
			args = append(args[:2], args[4:]...)
		}
		_, probs := Resolve(s)
		err := tool(t, append(args, sparse(t, s.Size))...)
		if len(probs) == 0 && err != nil {
			t.Errorf("FAT%s %dMiB %s clusters: Resolve accepts what mkfs.fat refuses: %v", c.fat, c.mib, size(c.cluster), err)
		}
		if len(probs) > 0 && err == nil && !strings.HasSuffix(probs[0].Summary, "cluster count at its limit") {
			t.Errorf("FAT%s %dMiB %s clusters: Resolve refuses what mkfs.fat accepts: %v", c.fat, c.mib, size(c.cluster), probs)
		}
	}
}

// TestLabelLimits: each tool takes MaxLabel bytes, and refuses or truncates
// one more, which is why Resolve refuses it.
func TestLabelLimits(t *testing.T) {
	testenv.Tools(t, "blkid")
	for _, name := range Names() {
		typ, _ := Lookup(name)
		if typ.MaxLabel == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			testenv.Tools(t, typ.Tool)
			s := Spec{Type: name, UUID: testUUID, Size: 512 * units.MiB}
			if name == "vfat" {
				s.Size = 64 * units.MiB
			}
			s.Label = strings.Repeat("A", typ.MaxLabel)
			img := sparse(t, s.Size)
			if err := tool(t, resolvedArgv(t, s, img)...); err != nil {
				t.Fatalf("label of %d bytes: %v", typ.MaxLabel, err)
			}
			if got := blkidLabel(t, img); got != s.Label {
				t.Errorf("label of %d bytes reads back as %q", typ.MaxLabel, got)
			}
			long := s.Label + "A"
			argv := resolvedArgv(t, s, img)
			for i, a := range argv {
				if a == s.Label {
					argv[i] = long
				}
			}
			if tool(t, argv...) == nil && blkidLabel(t, img) == long {
				t.Errorf("%s stores a label of %d bytes; MaxLabel %d is too low", typ.Tool, len(long), typ.MaxLabel)
			}
			s.Label = long
			assertProblem(t, s, "label", name+" label too long")
		})
	}
}

func blkidLabel(t *testing.T, img string) string {
	t.Helper()
	out, _ := exec.Command("blkid", "-p", "-o", "value", "-s", "LABEL", img).Output()
	return strings.TrimSpace(string(out))
}

func assertProblem(t *testing.T, s Spec, field, summary string) {
	t.Helper()
	_, probs := Resolve(s)
	for _, p := range probs {
		if p.Field == field && strings.Contains(strings.ToLower(p.Summary), strings.ToLower(summary)) {
			return
		}
	}
	t.Errorf("Resolve(%s): want a problem %s %q, got %+v", s.Type, field, summary, probs)
}

func assertNoProblems(t *testing.T, s Spec) {
	t.Helper()
	if _, probs := Resolve(s); len(probs) > 0 {
		t.Errorf("Resolve(%s): unexpected problems %+v", s.Type, probs)
	}
}

// TestF2FSExtensionRoom: mkfs.f2fs keeps 24 of the spec's extensions
// beside its own 40. A 25th cold one makes it fail; hot ones past the 24
// are left out of the superblock. Extensions already on its list do not
// count.
func TestF2FSExtensionRoom(t *testing.T) {
	testenv.Tools(t, "mkfs.f2fs")
	for _, c := range []struct {
		name      string
		cold, hot []any
		ok        bool
	}{
		{"24 cold", extensions("c", 24), nil, true},
		{"25 cold", extensions("c", 25), nil, false},
		{"24 cold and its own", append(extensions("c", 24), "mp", "so"), nil, true},
		{"24 cold and its hot db", append(extensions("c", 24), "db"), nil, false},
		{"20 cold 4 hot", extensions("c", 20), extensions("h", 4), true},
		{"20 cold 5 hot", extensions("c", 20), extensions("h", 5), false},
		{"25 hot", nil, extensions("h", 25), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Spec{Type: "f2fs", UUID: testUUID, Size: 64 * units.MiB, Tuning: map[string]any{}}
			if c.cold != nil {
				s.Tuning["cold_extensions"] = c.cold
			}
			if c.hot != nil {
				s.Tuning["hot_extensions"] = c.hot
			}
			r, probs := Resolve(s)
			img := sparse(t, s.Size)
			err := tool(t, mkfsArgv(r, img)...)
			kept := err == nil && f2fsKeepsAll(t, img, append(c.cold, c.hot...))
			if kept != c.ok {
				t.Fatalf("mkfs.f2fs error %v, kept all %t, want ok=%t; the evidence changed", err, kept, c.ok)
			}
			if (len(probs) == 0) != c.ok {
				t.Errorf("want ok=%t, problems %+v", c.ok, probs)
			}
		})
	}
}

// f2fsKeepsAll reads the superblock's extension list (at byte 1152 of
// struct f2fs_super_block, 1KiB into the image) and reports whether it
// holds every one of exts.
func f2fsKeepsAll(t *testing.T, img string, exts []any) bool {
	t.Helper()
	f, err := os.Open(img)
	must(t, err)
	defer f.Close()
	list := make([]byte, f2fsMaxExtensions*8)
	_, err = f.ReadAt(list, 1024+1152)
	must(t, err)
	have := map[string]bool{}
	for i := 0; i < f2fsMaxExtensions; i++ {
		have[strings.TrimRight(string(list[i*8:i*8+8]), "\x00")] = true
	}
	for _, x := range exts {
		if !have[x.(string)] {
			return false
		}
	}
	return true
}

// TestFATRootEntries: mkfs.fat takes up to 32768 root entries.
func TestFATRootEntries(t *testing.T) {
	testenv.Tools(t, "mkfs.vfat")
	for _, n := range []int64{16, 32768, 32769} {
		s := Spec{Type: "vfat", UUID: testUUID, Size: 32 * units.MiB, Tuning: map[string]any{"root_entries": n}}
		_, probs := Resolve(s)
		err := tool(t, "mkfs.vfat", "--invariant", "-r", fmt.Sprint(n), sparse(t, s.Size))
		if (err == nil) != (len(probs) == 0) {
			t.Errorf("root_entries %d: mkfs.fat error %v, problems %+v", n, err, probs)
		}
	}
}
