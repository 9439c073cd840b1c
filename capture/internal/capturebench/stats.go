package main

import (
	"math"
	"slices"
)

// figures is what one run of one tool scored. Errors are in seconds.
type figures struct {
	Median   float64 `json:"median_s"`
	P99      float64 `json:"p99_s"`
	Max      float64 `json:"max_s"`
	Interval float64 `json:"interval_s"` // root mount to prompt
	// LagMedian and LagP99 need no reference line: a line's lag is its
	// stamp_i - send_i less the smallest over the run, the delay beyond
	// the quickest line. A stall at the reference line shifts every error
	// above but leaves these alone.
	LagMedian float64 `json:"lag_median_s"`
	LagP99    float64 `json:"lag_p99_s"`
	CPU       float64 `json:"cpu_s"`     // user+sys of the whole tool run
	Startup   float64 `json:"startup_s"` // CPU used before it waited for input
	Switches  float64 `json:"switches"`  // context switches, voluntary or not
	MajFlt    float64 `json:"majflt"`    // page faults that read from disk
	Hangup    bool    `json:"hangup"`    // it had to be stopped by closing the master
}

// lineErrors compares stamps with send times, both in seconds from any
// origin: the error of line i is (stamp_i - stamp_ref) - (send_i -
// send_ref), so a constant delay cancels out and what remains is how much
// the delay varies from line to line. The reference line itself is left
// out (its error is 0 by definition). The interval error is that of the
// prompt line: the error of the measured root-mount-to-prompt time.
func lineErrors(stamps, sends []float64, ref, prompt int) figures {
	errs := make([]float64, 0, len(stamps))
	for i := range stamps {
		if i == ref {
			continue
		}
		errs = append(errs, math.Abs((stamps[i]-stamps[ref])-(sends[i]-sends[ref])))
	}
	slices.Sort(errs)
	lags := make([]float64, len(stamps))
	for i := range stamps {
		lags[i] = stamps[i] - sends[i]
	}
	slices.Sort(lags)
	quickest := lags[0]
	for i := range lags {
		lags[i] -= quickest
	}
	return figures{
		Median:    median(errs),
		P99:       nearestRank(errs, 0.99),
		Max:       errs[len(errs)-1],
		Interval:  math.Abs((stamps[prompt] - stamps[ref]) - (sends[prompt] - sends[ref])),
		LagMedian: median(lags),
		LagP99:    nearestRank(lags, 0.99),
	}
}

// median of sorted values.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// nearestRank is the p-quantile of sorted values by the nearest-rank
// method: with 299 lines, p99 is the third largest error.
func nearestRank(v []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(v)))) - 1
	return v[max(k, 0)]
}

// medianOf is the median of one figure over runs.
func medianOf(runs []figures, f func(figures) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return median(v)
}
