package layout

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/units"
)

func TestStructures(t *testing.T) {
	for _, c := range []struct {
		d                    Disk
		first, last, entries int64
	}{
		{Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 512}, 34, 131072 - 34, 2},
		{Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 4096}, 6, 16384 - 6, 2},
		{Disk{Table: "gpt", Size: 64 * units.MiB, SectorSize: 512, GPTEntries: units.MiB}, 2048 + 32, 131072 - 34, 2048},
		{Disk{Table: "mbr", Size: 64 * units.MiB, SectorSize: 512}, 1, 131071, 0},
	} {
		res, probs := Place(c.d, nil)
		if len(probs) != 0 || res.FirstUsable != c.first || res.LastUsable != c.last || res.EntriesSector != c.entries {
			t.Errorf("Place(%+v) = first %d last %d entries %d, %v; want %d, %d, %d", c.d, res.FirstUsable, res.LastUsable, res.EntriesSector, probs, c.first, c.last, c.entries)
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
		{Name: "boot", Index: 0, Number: 1, StartSector: 8192, Sectors: 131072},
		{Name: "root", Index: 1, Number: 2, StartSector: 139264, Sectors: 204800},
		// root ends at sector 344064, already a multiple of 8192; the
		// usable end (524254) rounds down to 516096.
		{Name: "data", Index: 2, Number: 3, StartSector: 344064, Sectors: 516096 - 344064},
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
		{"four primaries plus logical", mbr, []Request{{Name: "a", Size: mib, Offset: -1}, {Name: "b", Size: mib, Offset: -1}, {Name: "c", Size: mib, Offset: -1}, {Name: "d", Size: mib, Offset: -1}, {Name: "e", Size: mib, Offset: -1, Logical: true}}, 4, "", "Too many primary"},
		{"grow not last", gpt, []Request{{Name: "a", Offset: -1, Grow: true}, {Name: "b", Size: mib, Offset: -1}}, 0, "grow", "not last"},
		{"offset before previous end", gpt, []Request{{Name: "a", Size: 8 * mib, Offset: -1}, {Name: "b", Size: mib, Offset: 2 * mib}}, 1, "offset", "Overlapping"},
		{"primary among logical", mbr, []Request{{Name: "a", Size: mib, Offset: -1, Logical: true}, {Name: "b", Size: mib, Offset: 10 * mib}, {Name: "c", Size: mib, Offset: 20 * mib, Logical: true}}, 1, "offset", "among logical"},
		{"logical out of order", mbr, []Request{{Name: "a", Size: mib, Offset: 20 * mib, Logical: true}, {Name: "b", Size: mib, Offset: 10 * mib, Logical: true}}, 1, "offset", "out of order"},
		{"partition before moved entries", Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib, GPTEntries: 4 * mib}, []Request{{Name: "a", Size: mib, Offset: 2 * mib}}, 0, "offset", "Overlapping"},
		{"entries on the header", Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib, GPTEntries: 512}, nil, -1, "gpt_location", "over the header"},
		{"entries off sector", Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib, GPTEntries: 4000}, nil, -1, "gpt_location", "not on a sector"},
		{"extended slot without logical", Disk{Table: "mbr", Size: 64 * mib, SectorSize: 512, Align: mib, ExtendedSlot: 2}, []Request{{Name: "a", Size: mib, Offset: -1}}, -1, "extended_slot", "without logical"},
		{"grow without image size", Disk{Table: "gpt", SectorSize: 512, Align: mib}, []Request{{Name: "a", Offset: -1, Grow: true}}, 0, "grow", "without a size"},
		{"ebr inside previous", mbr, []Request{{Name: "a", Size: 8 * mib, Offset: mib}, {Name: "b", Size: mib, Offset: 9 * mib, Logical: true}}, 1, "offset", "Overlapping"},
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

// TestForcedPrimary is genimage's hdimage-forced-primary layout: the
// extended partition in slot 2, primary partitions 3 and 4 after it on
// the disk. Its expected sfdisk dump is genimage's
// test/hdimage-forced-primary.fdisk.
func TestForcedPrimary(t *testing.T) {
	mib := units.MiB
	d := Disk{Table: "mbr", SectorSize: 512, Align: mib, ExtendedSlot: 2}
	reqs := []Request{{Name: "part1", Size: mib, Offset: -1}}
	for _, n := range []string{"part5", "part6", "part7", "part8", "part9"} {
		reqs = append(reqs, Request{Name: n, Size: mib, Offset: -1, Logical: true})
	}
	reqs = append(reqs, Request{Name: "part3", Size: mib, Offset: -1}, Request{Name: "part4", Size: mib, Offset: -1})
	res, probs := Place(d, reqs)
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	got := map[int][2]int64{}
	for _, p := range res.Partitions {
		got[p.Number] = [2]int64{p.StartSector, p.Sectors}
	}
	want := map[int][2]int64{1: {2048, 2048}, 3: {24576, 2048}, 4: {26624, 2048},
		5: {6144, 2048}, 6: {10240, 2048}, 7: {14336, 2048}, 8: {18432, 2048}, 9: {22528, 2048}}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("partition %d = %v, want %v", n, got[n], w)
		}
	}
	if e := res.Extended; e == nil || e.Slot != 2 || e.StartSector != 4096 || e.Sectors != 20480 {
		t.Errorf("extended = %+v, want slot 2 at 4096 for 20480", res.Extended)
	}
	if res.Size != 28672*512 {
		t.Errorf("computed size = %d, want %d", res.Size, 28672*512)
	}
}

// TestDiskOrderIndependentOfNumbers: a partition declared later may lie
// earlier on the disk.
func TestDiskOrderIndependentOfNumbers(t *testing.T) {
	mib := units.MiB
	for _, table := range []string{"gpt", "mbr"} {
		d := Disk{Table: table, Size: 64 * mib, SectorSize: 512, Align: mib}
		res, probs := Place(d, []Request{
			{Name: "rootfs", Size: 32 * mib, Offset: 16 * mib},
			{Name: "boot", Size: 8 * mib, Offset: mib},
			{Name: "data", Size: 8 * mib, Offset: -1}, // after the previous one declared: rootfs
		})
		if len(probs) != 0 {
			t.Fatalf("%s: problems: %+v", table, probs)
		}
		byName := map[string]Placed{}
		for _, p := range res.Partitions {
			byName[p.Name] = p
		}
		if r, b, dd := byName["rootfs"], byName["boot"], byName["data"]; r.Number != 1 || b.Number != 2 || dd.Number != 3 ||
			b.StartSector != 2048 || r.StartSector != 32768 || dd.StartSector != 98304 {
			t.Errorf("%s: %+v", table, res.Partitions)
		}
		if s := res.Sorted(); s[0].Name != "boot" || s[1].Name != "rootfs" {
			t.Errorf("%s: disk order %+v", table, s)
		}
	}
}

// TestAutoPlacementSkipsReserved: a partition without an offset goes
// past a boot ROM's raw region rather than onto it.
func TestAutoPlacementSkipsReserved(t *testing.T) {
	mib := units.MiB
	d := Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib,
		Reserved: []Span{{Name: "u-boot", Start: 8 * 1024, End: mib + 512*1024}}}
	res, probs := Place(d, []Request{{Name: "boot", Size: 8 * mib, Offset: -1}, {Name: "data", Offset: -1, Grow: true}})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	if b := res.Partitions[0]; b.StartSector != 4096 {
		t.Errorf("boot starts at sector %d, want 4096 (2MiB, past the raw region)", b.StartSector)
	}
}

// TestGrowStopsAtLaterPartition: a growing partition fills up to a
// partition placed after it with an offset.
func TestGrowStopsAtLaterPartition(t *testing.T) {
	mib := units.MiB
	d := Disk{Table: "gpt", Size: 64 * mib, SectorSize: 512, Align: mib}
	res, probs := Place(d, []Request{{Name: "a", Offset: -1, Grow: true}, {Name: "b", Size: 8 * mib, Offset: 48 * mib}})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	if a := res.Partitions[0]; a.StartSector != 2048 || a.end() != 48*2048 {
		t.Errorf("a = %+v, want sectors 2048 up to 98304", a)
	}
}

func TestComputedSize(t *testing.T) {
	mib := units.MiB
	res, probs := Place(Disk{Table: "gpt", SectorSize: 512, Align: mib}, []Request{{Name: "a", Size: mib, Offset: -1}})
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	// 2 MiB, then 33 sectors of backup GPT, rounded up to 4 KiB.
	if want := int64(2*mib + 20480); res.Size != want || res.LastUsable != want/512-2-32 {
		t.Errorf("size %d, last usable %d; want %d, %d", res.Size, res.LastUsable, want, want/512-34)
	}
}

func TestEBRMessage(t *testing.T) {
	mib := units.MiB
	_, probs := Place(Disk{Table: "mbr", Size: 64 * mib, SectorSize: 512, Align: 512},
		[]Request{{Name: "a", Size: 8 * mib, Offset: mib}, {Name: "b", Size: mib, Offset: 9 * mib, Logical: true}})
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, "EBR") || !strings.Contains(probs[0].Detail, "18431") ||
		!strings.Contains(probs[0].Detail, "sector 18433") {
		t.Errorf("problems = %+v; want one naming the EBR at sector 18431 and the fix at 18433", probs)
	}
}
