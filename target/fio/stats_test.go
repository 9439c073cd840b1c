package fio

import (
	"math"
	"testing"
)

// Values from fio's plat_val_to_idx and plat_idx_to_val (stat.c) worked by
// hand: exact below 128 ns, then 64 buckets per power of two.
func TestPlatBuckets(t *testing.T) {
	for _, tc := range []struct {
		ns  uint64
		idx int
		mid uint64
	}{
		{0, 0, 0},
		{127, 127, 127},
		{128, 128, 129},
		{129, 128, 129},
		{130, 129, 131},
		{255, 191, 255},
		{256, 192, 258},
		{1000, 317, 1004},
		{1 << 30, 25 * 64, 1<<30 + 1<<23},
		{math.MaxUint64, platN - 1, platValue(platN - 1)},
	} {
		idx := platIndex(tc.ns)
		if idx != tc.idx {
			t.Errorf("platIndex(%d) = %d, want %d", tc.ns, idx, tc.idx)
			continue
		}
		if mid := platValue(idx); mid != tc.mid {
			t.Errorf("platValue(%d) = %d, want %d", idx, mid, tc.mid)
		}
	}
	// Every bucket's middle falls in the bucket.
	for i := range platN - 1 {
		if got := platIndex(platValue(i)); got != i {
			t.Fatalf("bucket %d: its value %d falls in bucket %d", i, platValue(i), got)
		}
	}
}

func TestLatStat(t *testing.T) {
	st := newLatStat(true)
	for i := uint64(1); i <= 100; i++ {
		st.add(i * 1000) // 1..100 µs
	}
	l := st.latency()
	if l.N != 100 || l.Min != 1 || l.Max != 100 || math.Abs(l.Mean-50.5) > 1e-9 {
		t.Fatalf("latency %+v", l)
	}
	if want := 29.011491975882016; math.Abs(l.Stddev-want) > 1e-9 { // sample stddev of 1..100
		t.Fatalf("stddev %v, want %v", l.Stddev, want)
	}
	if len(l.Percentiles) != len(Percentiles) {
		t.Fatalf("%d percentiles", len(l.Percentiles))
	}
	for _, p := range l.Percentiles {
		// The p-th sample, to within the bucket's width (1/64).
		want := math.Ceil(p.P)
		if math.Abs(p.Value-want)/want > 1.0/64 {
			t.Errorf("p%v = %v µs, want about %v", p.P, p.Value, want)
		}
	}
	// Merging two halves gives the whole.
	a, b := newLatStat(true), newLatStat(true)
	for i := uint64(1); i <= 100; i++ {
		if i%3 == 0 {
			a.add(i * 1000)
		} else {
			b.add(i * 1000)
		}
	}
	a.merge(&b)
	m := a.latency()
	if m.N != l.N || m.Min != l.Min || m.Max != l.Max || math.Abs(m.Mean-l.Mean) > 1e-9 || math.Abs(m.Stddev-l.Stddev) > 1e-9 {
		t.Fatalf("merged %+v, want %+v", m, l)
	}
	for i := range m.Percentiles {
		if m.Percentiles[i] != l.Percentiles[i] {
			t.Fatalf("merged percentiles %v, want %v", m.Percentiles, l.Percentiles)
		}
	}
}
