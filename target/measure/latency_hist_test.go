package measure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The histogram's percentiles are within 1/256 of the exact nearest-rank
// percentiles of the same samples, over nine decades of latency.
func TestLatencyHistErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h LatencyHist
	samples := make([]uint64, 200000)
	for i := range samples {
		// Log-uniform from 1ns to 100s, and a cluster of equal values.
		v := uint64(math.Exp(r.Float64() * math.Log(1e11)))
		if i%10 == 0 {
			v = 4_000_000
		}
		samples[i] = v
		h.Add(time.Duration(v))
	}
	slices.Sort(samples)
	var sum float64
	for _, v := range samples {
		sum += float64(v)
	}
	if got, want := h.Mean(), sum/float64(len(samples)); math.Abs(got-want) > want*1e-12 {
		t.Errorf("mean %v, want %v", got, want)
	}
	if h.Min != samples[0] || h.Max != samples[len(samples)-1] || h.N != uint64(len(samples)) {
		t.Errorf("min %d max %d n %d, want %d %d %d", h.Min, h.Max, h.N, samples[0], samples[len(samples)-1], len(samples))
	}
	worst := 0.0
	for p := 0.0; p <= 100; p += 0.01 {
		rank := max(1, int(math.Ceil(p/100*float64(len(samples)))))
		exact := float64(samples[rank-1])
		rel := math.Abs(h.Percentile(p)-exact) / exact
		worst = max(worst, rel)
		if rel > 1.0/256 {
			t.Fatalf("p%g: %v, exact %v: off by %.3f%%", p, h.Percentile(p), exact, rel*100)
		}
	}
	t.Logf("worst relative error %.3f%%", worst*100)
}

func TestLatencyHistBuckets(t *testing.T) {
	// Every value lies in its bucket, buckets are contiguous, and their
	// width is at most 1/128 of their lower bound (exact below 256).
	prevEnd := uint64(0)
	for i := 0; i < histBuckets; i++ {
		lo, w := histBounds(i)
		if lo != prevEnd {
			t.Fatalf("bucket %d starts at %d, the previous ended at %d", i, lo, prevEnd)
		}
		if lo >= 256 && w*128 > lo {
			t.Fatalf("bucket %d: [%d, +%d) wider than 1/128", i, lo, w)
		}
		if histIndex(lo) != i || histIndex(lo+w-1) != i {
			t.Fatalf("bucket %d [%d, %d]: indexes %d, %d", i, lo, lo+w-1, histIndex(lo), histIndex(lo+w-1))
		}
		prevEnd = lo + w
	}
	if prevEnd != 0 { // wrapped past 2^64-1
		t.Fatalf("buckets end at %d, not 2^64", prevEnd)
	}
	var h LatencyHist
	for _, v := range []time.Duration{5, 7, 7, 300} {
		h.Add(v)
	}
	if h.Percentile(50) != 7 || h.Percentile(0) != 5 || h.Percentile(100) != 300 {
		t.Errorf("p0 p50 p100 = %v %v %v, want 5 7 300", h.Percentile(0), h.Percentile(50), h.Percentile(100))
	}
	if !math.IsNaN((&LatencyHist{}).Percentile(50)) {
		t.Errorf("an empty histogram has a percentile")
	}
}
