package layout

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/units"
)

func TestUsable(t *testing.T) {
	for _, c := range []struct {
		d           Disk
		first, last int64
	}{
		{Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 512}, 34, 131072 - 34},
		{Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 4096}, 6, 16384 - 6},
		{Disk{Table: "mbr", Size: 64 * units.MiB, SectorSize: 512}, 1, 131071},
	} {
		f, l := Usable(c.d)
		if f != c.first || l != c.last {
			t.Errorf("Usable(%+v) = %d, %d; want %d, %d", c.d, f, l, c.first, c.last)
		}
	}
}

func TestPlaceGPTAlignedAndGrow(t *testing.T) {
	d := Disk{Table: "gpt", Size: 256 * units.MiB, SectorSize: 512, Align: 4 * units.MiB}
	res, probs := Place(d, []Request{
		{Name: "boot", Size: 64 * units.MiB, Offset: -1},
		{Name: "root", Size: 100 * units.MiB, Offset: -1},
		{Name: "data", Offset: -1, Grow: true},
	})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	want := []Placed{
		{Name: "boot", Number: 1, StartSector: 8192, Sectors: 131072},
		{Name: "root", Number: 2, StartSector: 139264, Sectors: 204800},
		// root ends at sector 344064, already a multiple of 8192; the
		// usable end (524254) rounds down to 516096.
		{Name: "data", Number: 3, StartSector: 344064, Sectors: 516096 - 344064},
	}
	for i, w := range want {
		if res.Partitions[i] != w {
			t.Errorf("partition %d = %+v, want %+v", i, res.Partitions[i], w)
		}
	}
}

func TestPlaceMBRLogical(t *testing.T) {
	d := Disk{Table: "mbr", Size: 64 * units.MiB, SectorSize: 512, Align: units.MiB}
	reqs := []Request{
		{Name: "a", Size: 8 * units.MiB, Offset: -1},
		{Name: "b", Size: 8 * units.MiB, Offset: -1},
		{Name: "c", Size: 8 * units.MiB, Offset: -1},
		{Name: "d", Size: 8 * units.MiB, Offset: -1, Logical: true},
		{Name: "e", Size: 8 * units.MiB, Offset: -1, Logical: true},
	}
	res, probs := Place(d, reqs)
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	if res.Extended == nil || res.Extended.StartSector != 51200 {
		t.Fatalf("extended = %+v, want start 51200", res.Extended)
	}
	dd, e := res.Partitions[3], res.Partitions[4]
	if dd.Number != 5 || e.Number != 6 {
		t.Errorf("logical numbers = %d, %d; want 5, 6", dd.Number, e.Number)
	}
	if dd.EBRSector != 51200 || dd.StartSector != 53248 {
		t.Errorf("first logical = %+v; want EBR 51200, start 53248", dd)
	}
	if e.EBRSector != dd.StartSector+dd.Sectors || e.StartSector != e.EBRSector+2048 {
		t.Errorf("second logical = %+v after %+v", e, dd)
	}
	if end := res.Extended.StartSector + res.Extended.Sectors; end != e.StartSector+e.Sectors {
		t.Errorf("extended ends at %d, last logical at %d", end, e.StartSector+e.Sectors)
	}
}

func TestPlaceProblems(t *testing.T) {
	mib := units.MiB
	gpt := Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib}
	mbr := Disk{Table: "mbr", Size: 64 * mib, SectorSize: 512, Align: mib}
	cases := []struct {
		name    string
		d       Disk
		reqs    []Request
		index   int
		field   string
		summary string
	}{
		{"too big", gpt, []Request{{Name: "a", Size: 64 * mib, Offset: -1}}, 0, "size", "does not fit"},
		{"misaligned", gpt, []Request{{Name: "a", Size: mib, Offset: mib + 512}}, 0, "offset", "Misaligned"},
		{"off sector", gpt, []Request{{Name: "a", Size: mib, Offset: mib + 100}}, 0, "offset", "not on a sector"},
		{"overlap", gpt, []Request{{Name: "a", Size: 8 * mib, Offset: mib}, {Name: "b", Size: mib, Offset: 4 * mib}}, 1, "offset", "Overlapping"},
		{"inside table", gpt, []Request{{Name: "a", Size: mib, Offset: 512}}, 0, "offset", "Overlapping"},
		{"partial sector", gpt, []Request{{Name: "a", Size: mib + 1, Offset: -1}}, 0, "size", "whole number of sectors"},
		{"five primaries", mbr, []Request{{Name: "a", Size: mib, Offset: -1}, {Name: "b", Size: mib, Offset: -1}, {Name: "c", Size: mib, Offset: -1}, {Name: "d", Size: mib, Offset: -1}, {Name: "e", Size: mib, Offset: -1}}, 4, "", "Too many primary"},
		{"four primaries plus logical", mbr, []Request{{Name: "a", Size: mib, Offset: -1}, {Name: "b", Size: mib, Offset: -1}, {Name: "c", Size: mib, Offset: -1}, {Name: "d", Size: mib, Offset: -1}, {Name: "e", Size: mib, Offset: -1, Logical: true}}, 3, "", "Too many primary"},
		{"grow not last", gpt, []Request{{Name: "a", Offset: -1, Grow: true}, {Name: "b", Size: mib, Offset: -1}}, 0, "grow", "not last"},
		{"offset before previous end", gpt, []Request{{Name: "a", Size: 8 * mib, Offset: -1}, {Name: "b", Size: mib, Offset: 2 * mib}}, 1, "offset", "Overlapping"},
		{"primary after logical", mbr, []Request{{Name: "a", Size: mib, Offset: -1, Logical: true}, {Name: "b", Size: mib, Offset: -1}}, 1, "logical", "after logical"},
		{"logical on gpt", gpt, []Request{{Name: "a", Size: mib, Offset: -1, Logical: true}}, 0, "logical", "GPT"},
		{"mbr too large", Disk{Table: "mbr", Size: 3 * units.TiB, SectorSize: 512, Align: mib}, nil, -1, "size", "too large for MBR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, probs := Place(c.d, c.reqs)
			for _, p := range probs {
				if p.Index == c.index && p.Field == c.field && strings.Contains(p.Summary, c.summary) {
					return
				}
			}
			t.Errorf("want problem %q at request %d field %q; got %+v", c.summary, c.index, c.field, probs)
		})
	}
}

func TestGrowNotLastReportsOnlyItself(t *testing.T) {
	d := Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 512, Align: units.MiB}
	_, probs := Place(d, []Request{
		{Name: "a", Offset: -1, Grow: true},
		{Name: "b", Size: 8 * units.MiB, Offset: -1},
		{Name: "c", Size: 8 * units.MiB, Offset: -1},
	})
	if len(probs) != 1 || probs[0].Index != 0 || probs[0].Field != "grow" {
		t.Errorf("problems = %+v, want only the grow partition's", probs)
	}
}

// TestFirstLogicalWithOffset: the extended partition must start at the
// first EBR, or the kernel finds no logical partition at all.
func TestFirstLogicalWithOffset(t *testing.T) {
	d := Disk{Table: "mbr", Size: 64 * units.MiB, SectorSize: 512, Align: units.MiB}
	res, probs := Place(d, []Request{
		{Name: "a", Size: 8 * units.MiB, Offset: -1},
		{Name: "b", Size: 8 * units.MiB, Offset: 32 * units.MiB, Logical: true},
		{Name: "c", Size: 8 * units.MiB, Offset: -1, Logical: true},
	})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	b, c := res.Partitions[1], res.Partitions[2]
	if b.StartSector != 65536 || b.EBRSector != 65535 || res.Extended.StartSector != b.EBRSector {
		t.Errorf("first logical %+v, extended %+v: the extended partition must start at the first EBR", b, res.Extended)
	}
	if c.EBRSector < b.StartSector+b.Sectors || c.StartSector != c.EBRSector+2048 {
		t.Errorf("second logical %+v after %+v", c, b)
	}
}
