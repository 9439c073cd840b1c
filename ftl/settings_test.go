package ftl

import (
	"math"
	"strings"
	"testing"
)

func TestSettingsErrors(t *testing.T) {
	ok := Settings{PageSize: 16 << 10, EraseBlockSize: 4 << 20, LogicalBytes: 1 << 30, OverProvisioning: 0.07}
	for _, c := range []struct {
		name string
		edit func(*Settings)
		want []string
	}{
		{"page larger than the erase block", func(s *Settings) { s.EraseBlockSize = 8 << 10 }, []string{"erase block of 8192 bytes is not larger than the 16384-byte page"}},
		{"page as large as the erase block", func(s *Settings) { s.EraseBlockSize = 16 << 10 }, []string{"not larger than the 16384-byte page"}},
		{"page not a power of two", func(s *Settings) { s.PageSize = 12 << 10 }, []string{"page size 12288 bytes is not a power of two"}},
		{"page too small", func(s *Settings) { s.PageSize = 256 }, []string{"page size 256 bytes: want 512 B to 1 MiB"}},
		{"erase block not whole pages", func(s *Settings) { s.EraseBlockSize = 4<<20 + 4096 }, []string{"not a whole number of 16384-byte pages"}},
		{"negative over-provisioning", func(s *Settings) { s.OverProvisioning = -0.07 }, []string{"over-provisioning -0.07"}},
		{"NaN over-provisioning", func(s *Settings) { s.OverProvisioning = math.NaN() }, []string{"over-provisioning NaN"}},
		{"static share of all", func(s *Settings) { s.StaticShare = 1 }, []string{"static data share 1"}},
		{"logical capacity not in sectors", func(s *Settings) { s.LogicalBytes = 1000 }, []string{"logical capacity 1000 bytes"}},
		{"negative reserve", func(s *Settings) { s.GCFreeBlocks = -1 }, []string{"GC reserve of -1 free blocks"}},
		{"too little over-provisioning for the reserve", func(s *Settings) { s.OverProvisioning = 0.01 },
			[]string{"over-provisioning of 0.01 leaves", "the model needs 1024 (4 erase blocks: the GC reserve of 2 and the two open blocks)"}},
		{"too large to model", func(s *Settings) { s.PageSize, s.EraseBlockSize, s.LogicalBytes = 512, 1024, 2<<40 }, []string{"too many pages to model"}},
		{"every error at once", func(s *Settings) { s.PageSize, s.OverProvisioning, s.StaticShare = 3000, -1, -1 },
			[]string{"page size 3000", "over-provisioning -1", "static data share -1"}},
	} {
		s := ok
		c.edit(&s)
		_, err := New(s)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v\nwant %q", c.name, err, want)
			}
		}
	}
	m, err := New(ok)
	if err != nil {
		t.Fatal(err)
	}
	// 65536 logical pages × 1.07 / 256 pages a block = 273.92: 274 blocks.
	g := m.Geometry()
	if g.PagesPerBlock != 256 || g.SectorsPerPage != 32 || g.Blocks != 274 || g.LogicalPages != 65536 || m.Settings().GCFreeBlocks != DefaultGCFreeBlocks {
		t.Errorf("geometry %+v", g)
	}
	if op := g.OverProvisioning(); op < 0.07 || op > 0.0705 {
		t.Errorf("actual over-provisioning %v, want 0.07 rounded up to whole blocks", op)
	}
	// TLC erase blocks of 3·2^n pages are fine.
	tlc := ok
	tlc.EraseBlockSize = 12 << 20
	if _, err := New(tlc); err != nil {
		t.Errorf("a 12 MiB erase block: %v", err)
	}
}
