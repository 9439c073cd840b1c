package ftl

import (
	"reflect"
	"strings"
	"testing"

	bt "github.com/fsbench/fsbench/wire/blocktrace"
)

// tiny is 4 erase blocks of 4 pages of 4 KiB for 4 logical pages, with
// the smallest reserve: small enough to follow by hand.
var tiny = Settings{PageSize: 4096, EraseBlockSize: 16384, LogicalBytes: 16384, OverProvisioning: 3, GCFreeBlocks: 1}

// pages writes whole pages, one record each.
func pages(lps ...int) []bt.Record {
	var rs []bt.Record
	for _, lp := range lps {
		rs = append(rs, bt.Record{Op: bt.Write, Sector: uint64(lp) * 8, Sectors: 8})
	}
	return rs
}

func newModel(t *testing.T, s Settings) *Model {
	t.Helper()
	m, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func replay(t *testing.T, m *Model, rs ...[]bt.Record) Counters {
	t.Helper()
	var all []bt.Record
	for _, r := range rs {
		all = append(all, r...)
	}
	c, err := m.Replay(all)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGreedyCollection follows garbage collection by hand:
//
//	pages 0 1 2 3  -> block 0 [0 1 2 3]
//	page 0, 4 times -> block 1 [0 0 0 0]: block 0 keeps 1 2 3
//	page 1, 4 times -> block 2 [1 1 1 1]: block 0 keeps 2 3
//	page 2 -> block 0 keeps 3; block 2 is full and one block is free, not
//	  more than the reserve of 1: collect. Blocks 0, 1, 2 hold one valid
//	  page each, all erased 0 times: the victim is block 0 (lowest index).
//	  Its page 3 goes to GC's new block 3, block 0 is erased; one block is
//	  free again, so collect block 1 (page 0 to block 3), erase it. Two
//	  free blocks, both erased once: the host takes block 0 for page 2.
func TestGreedyCollection(t *testing.T) {
	m := newModel(t, tiny)
	if g := m.Geometry(); g.Blocks != 4 || g.PagesPerBlock != 4 || g.LogicalPages != 4 {
		t.Fatalf("geometry %+v", g)
	}
	c := replay(t, m, pages(0, 1, 2, 3), pages(0, 0, 0, 0), pages(1, 1, 1, 1), pages(2))
	want := Counters{HostBytes: 13 * 4096, HostPrograms: 13, GCPrograms: 2, NANDBytes: 15 * 4096, Erases: 2}
	if c != want {
		t.Errorf("counters\n %+v\nwant\n %+v", c, want)
	}
	if got := m.EraseCounts(); !reflect.DeepEqual(got, []int64{1, 1, 0, 0}) {
		t.Errorf("erase counts %v, want [1 1 0 0]", got)
	}
	// lp0 and lp3 were copied to block 3 (pages 12, 13: lp3 first, as
	// block 0 went first); lp1 stays in block 2; lp2 is block 0's first.
	if want := []int32{13, 11, 0, 12}; !reflect.DeepEqual(m.l2p, want) {
		t.Errorf("mapping %v, want %v", m.l2p, want)
	}
	if got, want := c.WriteAmplification(), 15.0/13; got != want {
		t.Errorf("write amplification %v, want %v", got, want)
	}
}

// TestDiscardFreesABlock: block 0's pages all discarded, it is the victim
// and costs an erase but no copy.
func TestDiscardFreesABlock(t *testing.T) {
	m := newModel(t, tiny)
	discard := []bt.Record{{Op: bt.Discard, Sector: 0, Sectors: 32}}
	c := replay(t, m, pages(0, 1, 2, 3), discard, pages(0, 1, 2, 3), pages(0, 1, 0, 1), pages(2))
	if c.GCPrograms != 0 || c.Erases != 1 || c.DiscardBytes != 16384 || c.HostPrograms != 13 {
		t.Errorf("counters %+v: want 13 host programs, no copy, 1 erase, 16 KiB discarded", c)
	}
	if got := m.EraseCounts(); !reflect.DeepEqual(got, []int64{1, 0, 0, 0}) {
		t.Errorf("erase counts %v, want [1 0 0 0]", got)
	}
	// The host took the least-erased free block: 3, not the erased 0.
	if m.l2p[2] != 12 {
		t.Errorf("page 2 at %d, want 12 (block 3)", m.l2p[2])
	}
	// A discard that covers a page partly leaves it mapped.
	m = newModel(t, tiny)
	replay(t, m, pages(0, 1), []bt.Record{{Op: bt.Discard, Sector: 4, Sectors: 8}})
	if m.l2p[0] < 0 || m.l2p[1] < 0 {
		t.Errorf("a partial discard unmapped a page: %v", m.l2p)
	}
}

// mib is a device large enough never to collect in these tests.
var mib = Settings{PageSize: 4096, EraseBlockSize: 65536, LogicalBytes: 1 << 20, OverProvisioning: 0.5}

func w(sector uint64, sectors uint32) bt.Record {
	return bt.Record{Op: bt.Write, Sector: sector, Sectors: sectors}
}

// TestPartialPagesAndFlushPadding counts by hand, pages of 8 sectors:
//
//	write 0+2, write 2+2   buffer page 0: 4 sectors
//	flush                  program page 0: flush padding 4 sectors
//	write 4+4              buffer page 0 again: sectors 4-7
//	write 8+8              page 1: page 0 goes first, partial (4 sectors
//	                       missing); page 1 is whole, programmed
//	FUA write 16+1         page 2, programmed at once: 7 sectors of padding
//	write 24+1             page 3, left in the buffer: the trace's end
//	                       programs it, partial (7 missing)
func TestPartialPagesAndFlushPadding(t *testing.T) {
	fua := w(16, 1)
	fua.FUA = true
	trace := []bt.Record{w(0, 2), w(2, 2), {Op: bt.Flush}, w(4, 4), w(8, 8), fua, w(24, 1)}

	got := replay(t, newModel(t, mib), trace)
	want := Counters{HostBytes: 18 * 512, Flushes: 1, HostPrograms: 5, NANDBytes: 5 * 4096,
		FlushPrograms: 2, FlushPaddingBytes: (4 + 7) * 512, PartialPrograms: 2, PartialPageBytes: (4 + 7) * 512}
	if got != want {
		t.Errorf("with a write buffer\n %+v\nwant\n %+v", got, want)
	}

	nobuf := mib
	nobuf.NoWriteBuffer = true
	got = replay(t, newModel(t, nobuf), trace)
	want = Counters{HostBytes: 18 * 512, Flushes: 1, HostPrograms: 6, NANDBytes: 6 * 4096,
		PartialPrograms: 5, PartialPageBytes: (6 + 6 + 4 + 7 + 7) * 512}
	if got != want {
		t.Errorf("without a write buffer\n %+v\nwant\n %+v", got, want)
	}
}

// TestPreflushAndOverwrites: a preflush programs the buffered page before
// the write's data; sectors written twice in the buffer are programmed
// once, so a buffer can bring write amplification below 1.
func TestPreflushAndOverwrites(t *testing.T) {
	pre := w(8, 8)
	pre.PreFlush = true
	got := replay(t, newModel(t, mib), []bt.Record{w(0, 1), pre})
	want := Counters{HostBytes: 9 * 512, Flushes: 1, HostPrograms: 2, NANDBytes: 2 * 4096, FlushPrograms: 1, FlushPaddingBytes: 7 * 512}
	if got != want {
		t.Errorf("preflush\n %+v\nwant\n %+v", got, want)
	}
	got = replay(t, newModel(t, mib), []bt.Record{w(0, 4), w(0, 4), w(4, 4)})
	if got.HostPrograms != 1 || got.WriteAmplification() != 4096.0/(12*512) {
		t.Errorf("overwrites in the buffer: %+v, want one program", got)
	}
}

// TestTraceBeyondItsSpace: the trace may not reach the static data at
// the end of the logical space, nor past it; the error names the record,
// and nothing was applied.
func TestTraceBeyondItsSpace(t *testing.T) {
	s := mib
	s.StaticShare = 0.25 // the last 64 of 256 pages
	m := newModel(t, s)
	if g := m.Geometry(); g.StaticPages != 64 || g.TraceSectors != 192*8 {
		t.Fatalf("geometry %+v", g)
	}
	for _, r := range []bt.Record{w(192*8-1, 2), w(1<<20, 8), {Op: bt.Discard, Sector: 2047, Sectors: 2}} {
		_, err := m.Replay([]bt.Record{w(0, 8), r})
		if err == nil || !strings.Contains(err.Error(), "record 1 (") || !strings.Contains(err.Error(), "beyond the 1536 sectors") {
			t.Errorf("%v: error %v", r, err)
		}
	}
	if m.Counters() != (Counters{}) {
		t.Errorf("a refused trace was applied: %+v", m.Counters())
	}
	if _, err := m.Replay([]bt.Record{w(192*8-8, 8)}); err != nil {
		t.Errorf("the last page below the static data: %v", err)
	}
}
