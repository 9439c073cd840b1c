package fio

import (
	"math"
	"math/bits"
)

// fio's latency histogram (stat.h): values in nanoseconds, 29 groups of 64
// buckets; a bucket's width is 1/64 of its group's lower bound, so a
// percentile is off by at most 1/128 of its value. Keeping the histogram
// instead of the samples bounds memory whatever the number of I/Os, and
// computing percentiles from the same buckets gives fio's numbers.
const (
	platBits   = 6
	platVal    = 1 << platBits
	platGroups = 29
	platN      = platGroups * platVal
)

// platIndex is fio's plat_val_to_idx.
func platIndex(ns uint64) int {
	msb := 0
	if ns != 0 {
		msb = bits.Len64(ns) - 1
	}
	if msb <= platBits {
		return int(ns)
	}
	errorBits := msb - platBits
	base := (errorBits + 1) << platBits
	offset := int((platVal - 1) & (ns >> errorBits))
	return min(base+offset, platN-1)
}

// platValue is fio's plat_idx_to_val: the middle of bucket idx.
func platValue(idx int) uint64 {
	if idx < platVal<<1 {
		return uint64(idx)
	}
	errorBits := idx>>platBits - 1
	base := uint64(1) << (errorBits + platBits)
	k := idx % platVal
	return base + uint64((float64(k)+0.5)*float64(uint64(1)<<errorBits))
}

// Percentiles is fio's default percentile_list.
var Percentiles = [...]float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// latStat is fio's io_stat, plus the histogram where fio keeps one.
type latStat struct {
	n        uint64
	min, max uint64
	mean, s  float64 // running mean and sum of squared deviations (Welford)
	hist     *[platN]uint64
}

func newLatStat(withHist bool) latStat {
	st := latStat{min: math.MaxUint64}
	if withHist {
		st.hist = new([platN]uint64)
	}
	return st
}

// add is fio's add_stat_sample (plus the histogram count).
func (st *latStat) add(ns uint64) {
	st.max = max(st.max, ns)
	st.min = min(st.min, ns)
	if delta := float64(ns) - st.mean; delta != 0 {
		st.mean += delta / (float64(st.n) + 1)
		st.s += delta * (float64(ns) - st.mean)
	}
	st.n++
	if st.hist != nil {
		st.hist[platIndex(ns)]++
	}
}

// merge adds o's samples to st, as fio's group_reporting does.
func (st *latStat) merge(o *latStat) {
	if o.n == 0 {
		return
	}
	if st.hist != nil && o.hist != nil {
		for i, c := range o.hist {
			st.hist[i] += c
		}
	}
	if st.n == 0 {
		st.n, st.min, st.max, st.mean, st.s = o.n, o.min, o.max, o.mean, o.s
		return
	}
	n1, n2 := float64(st.n), float64(o.n)
	delta := o.mean - st.mean
	st.mean += delta * n2 / (n1 + n2)
	st.s += o.s + delta*delta*n1*n2/(n1+n2)
	st.n += o.n
	st.min = min(st.min, o.min)
	st.max = max(st.max, o.max)
}

// latency converts st to microseconds as fio's JSON reports it (there in
// nanoseconds), with percentiles when st keeps a histogram.
func (st *latStat) latency() Latency {
	if st.n == 0 {
		return Latency{}
	}
	l := Latency{
		N:    int64(st.n),
		Min:  float64(st.min) / 1e3,
		Max:  float64(st.max) / 1e3,
		Mean: st.mean / 1e3,
	}
	if st.n > 1 {
		l.Stddev = math.Sqrt(st.s/float64(st.n-1)) / 1e3
	}
	if st.hist != nil {
		l.Percentiles = percentiles(st.hist, st.n)
	}
	return l
}

// percentiles is fio's calc_clat_percentiles over the default list: the
// value of the first bucket at which the running count reaches p% of n.
func percentiles(hist *[platN]uint64, n uint64) []Percentile {
	out := make([]Percentile, 0, len(Percentiles))
	var sum uint64
	j := 0
	for i := 0; i < platN && j < len(Percentiles); i++ {
		sum += hist[i]
		for j < len(Percentiles) && float64(sum) >= Percentiles[j]/100*float64(n) {
			out = append(out, Percentile{P: Percentiles[j], Value: float64(platValue(i)) / 1e3})
			j++
		}
	}
	return out
}
