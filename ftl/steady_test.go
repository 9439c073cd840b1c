package ftl

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	bt "github.com/fsbench/fsbench/wire/blocktrace"
)

// emmc is a small eMMC: 16 KiB pages, 1 MiB erase blocks, 64 MiB user
// capacity, 7% over-provisioning.
var emmc = Settings{PageSize: 16 << 10, EraseBlockSize: 1 << 20, LogicalBytes: 64 << 20, OverProvisioning: 0.07}

// workload is a database-like trace over the first sectors sectors: 4 KiB
// writes at random, an fsync (flush) every eight, some 64 KiB appends
// with FUA, a discard now and then.
func workload(seed uint64, sectors uint64, n int) []bt.Record {
	rng := rand.New(rand.NewPCG(seed, 7))
	var rs []bt.Record
	for i := range n {
		switch {
		case i%50 == 49:
			rs = append(rs, bt.Record{Op: bt.Discard, Sector: rng.Uint64N(sectors/64) * 64, Sectors: 64})
		case i%8 == 7:
			rs = append(rs, bt.Record{Op: bt.Flush})
		case i%20 == 3:
			rs = append(rs, bt.Record{Op: bt.Write, FUA: true, Sector: rng.Uint64N(sectors/128) * 128, Sectors: 128})
		default:
			rs = append(rs, bt.Record{Op: bt.Write, Sector: rng.Uint64N(sectors/8) * 8, Sectors: 8})
		}
	}
	return rs
}

// TestSteadyStateOfAShortTrace: on a fresh device a short trace sees free
// blocks only and a write amplification of about 1; the steady state,
// once the free blocks have run out, costs garbage collection, and it
// takes many passes to get there.
func TestSteadyStateOfAShortTrace(t *testing.T) {
	s := emmc
	s.StaticShare = 0.7
	// 16 KiB writes at random over 16 MiB, with a 4 KiB write and an
	// fsync every hundred.
	rng := rand.New(rand.NewPCG(5, 5))
	var trace []bt.Record
	for i := range 1500 {
		if i%100 == 99 {
			trace = append(trace, w(uint64(rng.IntN(1024))*32, 8), bt.Record{Op: bt.Flush})
			continue
		}
		trace = append(trace, w(uint64(rng.IntN(1024))*32, 32))
	}

	fresh := newModel(t, s)
	if _, err := fresh.Precondition(); err != nil {
		t.Fatal(err)
	}
	first := replay(t, fresh, trace)

	r, err := SteadyState(s, trace, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first pass WA %.3f; steady %.3f after %d passes (%d warm-up, %d rounds of %d), converged %v; rounds %.3f",
		first.WriteAmplification(), r.WriteAmplification, r.Passes(), r.WarmupPasses, len(r.Rounds), r.PassesPerRound, r.Converged, roundWAs(r))
	if first.WriteAmplification() > 1.05 {
		t.Errorf("first pass on a fresh device: WA %.3f, want about 1", first.WriteAmplification())
	}
	if !r.Converged {
		t.Errorf("did not converge in %d rounds: %.3f", len(r.Rounds), roundWAs(r))
	}
	if r.Passes() != r.WarmupPasses+len(r.Rounds)*r.PassesPerRound || r.Passes() < 10 {
		t.Errorf("passes: %d warm-up, %d in all", r.WarmupPasses, r.Passes())
	}
	if r.WriteAmplification < 1.2 || r.Steady.GCPrograms == 0 {
		t.Errorf("steady state WA %.3f (%d GC programs): garbage collection should cost more", r.WriteAmplification, r.Steady.GCPrograms)
	}
	if r.Steady.FlushPaddingBytes == 0 || r.Steady.Flushes == 0 {
		t.Errorf("no flush padding in a trace of fsyncs: %+v", r.Steady)
	}
	// The static data never moves: its blocks are never erased, and the
	// wear is as uneven as the histogram says.
	if r.Wear.Min != 0 || float64(r.Wear.Max) <= r.Wear.Mean || len(r.Wear.PerBlock) != r.Geometry.Blocks {
		t.Errorf("wear %+v", r.Wear)
	}
	sum := 0
	for _, n := range r.Wear.Histogram {
		sum += n
	}
	if sum != r.Geometry.Blocks {
		t.Errorf("histogram %v counts %d blocks of %d", r.Wear.Histogram, sum, r.Geometry.Blocks)
	}
}

// TestReplayInOrderIsALog: a trace that rewrites its pages once each, in
// the same order every pass, invalidates blocks in the order it wrote
// them; garbage collection then finds empty victims and copies nothing,
// however long it runs. A limit of the method (replaying one trace), not
// of greedy collection.
func TestReplayInOrderIsALog(t *testing.T) {
	s := emmc
	s.StaticShare = 0.5
	rng := rand.New(rand.NewPCG(9, 9))
	var trace []bt.Record
	for _, p := range rng.Perm(1024) {
		trace = append(trace, w(uint64(p)*32, 32))
	}
	r, err := SteadyState(s, trace, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Steady.Erases == 0 || r.Steady.GCPrograms != 0 || r.WriteAmplification != 1 {
		t.Errorf("steady state %+v: want erases and no copy", r.Steady)
	}
}

func roundWAs(r *Result) []float64 {
	var s []float64
	for _, c := range r.Rounds {
		s = append(s, c.WriteAmplification())
	}
	return s
}

// TestDeterminism: the same trace and settings give the same result, to
// the last block's erase count; a different seed of the aging does not
// (the negative control: the comparison can fail).
func TestDeterminism(t *testing.T) {
	s := emmc
	s.StaticShare, s.AgeStatic, s.Seed = 0.3, true, 42
	trace := workload(3, 40<<20/512, 1500)
	a, err := SteadyState(s, trace, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SteadyState(s, trace, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ:\n %+v\n %+v", a.Steady, b.Steady)
	}
	s.Seed = 43
	c, err := SteadyState(s, trace, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.DeviceWear, c.DeviceWear) {
		t.Error("another seed gave the same wear: the comparison proves nothing")
	}
}

func TestPrecondition(t *testing.T) {
	s := emmc
	s.StaticShare = 0.6
	m := newModel(t, s)
	pc, err := m.Precondition()
	if err != nil {
		t.Fatal(err)
	}
	if pc.StaticPages != 2458 || pc.Counters.HostPrograms != 2458 || pc.Counters.Erases != 0 || pc.AgeRounds != 0 {
		t.Errorf("sequential fill: %+v", pc)
	}
	if _, err := m.Precondition(); err == nil {
		t.Error("a second preconditioning was accepted")
	}
	s.AgeStatic = true
	pc, err = newModel(t, s).Precondition()
	if err != nil {
		t.Fatal(err)
	}
	if !pc.AgeConverged || pc.AgeRounds < 2 || pc.Counters.Erases == 0 || pc.Counters.GCPrograms == 0 {
		t.Errorf("aging: %+v", pc)
	}
}

func TestNoWrites(t *testing.T) {
	_, err := SteadyState(emmc, []bt.Record{{Op: bt.Read, Sector: 0, Sectors: 8}, {Op: bt.Flush}}, Convergence{})
	if !errors.Is(err, ErrNoWrites) {
		t.Errorf("a trace without writes: %v, want ErrNoWrites", err)
	}
}

func TestWearSummary(t *testing.T) {
	w := summarize([]int64{0, 1, 1, 5})
	if w.Min != 0 || w.Max != 5 || w.Mean != 1.75 || w.Erases != 7 || w.Width != 1 || !reflect.DeepEqual(w.Histogram, []int{1, 2, 0, 0, 0, 1}) {
		t.Errorf("%+v", w)
	}
	w = summarize([]int64{40, 0, 3})
	if w.Width != 3 || len(w.Histogram) != 14 || w.Histogram[0] != 1 || w.Histogram[1] != 1 || w.Histogram[13] != 1 {
		t.Errorf("%+v", w)
	}
}
