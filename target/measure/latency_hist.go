package measure

import (
	"math"
	"math/bits"
	"time"
)

// LatencyHist counts durations in log-linear buckets, so that a step of a
// hundred million calls keeps 58KiB instead of every sample.
//
// Durations are counted in nanoseconds. Below 256ns every value has its
// own bucket. Above, each power of two [2^e, 2^(e+1)) is cut into 128
// buckets of equal width 2^(e-7): a bucket is at most 1/128 of its lower
// bound wide, and reporting its midpoint is off by at most half that, 1/256
// (0.39%) of the true value. Minimum, maximum, count and sum are exact,
// so the mean is too.
type LatencyHist struct {
	counts [histBuckets]uint64
	// N is the count of durations, Min and Max the shortest and longest
	// (ns).
	N        uint64
	Min, Max uint64
	sum      uint64 // ns; 2^64 ns are 584 years of sequential calls
}

const (
	histSubBits = 7
	histSub     = 1 << histSubBits
	// A bucket index is below histSub*(shift+2) for the largest shift,
	// 64-1-histSubBits.
	histBuckets = histSub * (64 - histSubBits + 1)
)

// histIndex is the bucket of v nanoseconds.
func histIndex(v uint64) int {
	if v < histSub {
		return int(v)
	}
	shift := bits.Len64(v) - 1 - histSubBits
	return histSub*shift + int(v>>uint(shift))
}

// histBounds is the lowest value of bucket i and its width.
func histBounds(i int) (lower, width uint64) {
	if i < 2*histSub {
		return uint64(i), 1
	}
	shift := uint(i/histSub - 1)
	return uint64(i%histSub+histSub) << shift, 1 << shift
}

// Add counts d.
func (h *LatencyHist) Add(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[histIndex(v)]++
	if h.N == 0 || v < h.Min {
		h.Min = v
	}
	h.Max = max(h.Max, v)
	h.N++
	h.sum += v
}

// Mean is the exact mean in nanoseconds.
func (h *LatencyHist) Mean() float64 {
	if h.N == 0 {
		return math.NaN()
	}
	return float64(h.sum) / float64(h.N)
}

// Percentile returns the p-th percentile in nanoseconds by the
// nearest-rank method (the smallest sample with at least p% of the samples
// at or below it), as the midpoint of its bucket, kept within the exact
// minimum and maximum.
func (h *LatencyHist) Percentile(p float64) float64 {
	if h.N == 0 {
		return math.NaN()
	}
	rank := uint64(math.Ceil(p / 100 * float64(h.N)))
	rank = min(max(rank, 1), h.N)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, w := histBounds(i)
			mid := float64(lo) + float64(w-1)/2
			return math.Min(math.Max(mid, float64(h.Min)), float64(h.Max))
		}
	}
	return float64(h.Max)
}
