package report

import (
	"math"
	"slices"

	"github.com/fsbench/fsbench/internal/stats"
)

// Confidence is the level of every interval and test in a report.
const Confidence = 0.95

// Alpha is the significance level of the Welch tests: 1 - Confidence.
const Alpha = 1 - Confidence

// Summary describes the iterations of one metric of one candidate.
// Spread, CV and CI need at least two values; HasSpread says whether they
// are defined, and HasCV whether the mean allows a coefficient of
// variation (it is not defined around a zero mean).
type Summary struct {
	N              int
	Mean, Median   float64
	Min, Max       float64
	Stddev         float64 // sample standard deviation (n-1)
	CV             float64 // Stddev / |Mean|, in percent
	CILow, CIHigh  float64 // Confidence interval of the mean, Student t
	HasSpread      bool
	HasCV          bool
	values, sorted []float64
}

// Summarize computes the summary of values; the slice is not modified.
func Summarize(values []float64) Summary {
	s := Summary{N: len(values), values: slices.Clone(values)}
	if s.N == 0 {
		return s
	}
	s.sorted = slices.Clone(values)
	slices.Sort(s.sorted)
	s.Min, s.Max = s.sorted[0], s.sorted[s.N-1]
	if s.N%2 == 1 {
		s.Median = s.sorted[s.N/2]
	} else {
		s.Median = s.sorted[s.N/2-1]/2 + s.sorted[s.N/2]/2
	}
	// Values near the float range's end (a bogus metric of 1e300) are
	// summed and squared scaled down, so that the mean and the spread do
	// not overflow to infinity; ordinary values are not scaled, so that
	// their digits stay exactly those of the plain sums.
	scale := 1.0
	if m := max(math.Abs(s.Min), math.Abs(s.Max)); m > 1e150 {
		scale = m
	}
	// Summing in sorted order makes the mean independent of the order
	// the iterations were read in.
	var sum float64
	for _, v := range s.sorted {
		sum += v / scale
	}
	mean := sum / float64(s.N)
	s.Mean = mean * scale
	s.CILow, s.CIHigh = s.Mean, s.Mean
	if s.N < 2 {
		return s
	}
	var ss float64
	for _, v := range s.sorted {
		d := v/scale - mean
		ss += d * d
	}
	s.Stddev = math.Sqrt(ss/float64(s.N-1)) * scale
	s.HasSpread = true
	if s.Mean != 0 {
		s.CV = 100 * s.Stddev / math.Abs(s.Mean)
		s.HasCV = true
	}
	half := stats.TQuantile(1-Alpha/2, float64(s.N-1)) * s.Stddev / math.Sqrt(float64(s.N))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// Values returns the values summarized, in the order given.
func (s Summary) Values() []float64 { return slices.Clone(s.values) }

// Welch is the outcome of Welch's unequal-variances t-test.
type Welch struct {
	T, DF, P float64
	// Tested is false when a sample has fewer than two values: nothing
	// can be said about the difference.
	Tested bool
}

// Significant reports whether the difference is significant at Alpha.
func (w Welch) Significant() bool { return w.Tested && w.P < Alpha }

// WelchTest compares the means of two samples, two-sided.
func WelchTest(a, b Summary) Welch {
	if a.N < 2 || b.N < 2 {
		return Welch{}
	}
	va, vb := a.Stddev*a.Stddev/float64(a.N), b.Stddev*b.Stddev/float64(b.N)
	diff := a.Mean - b.Mean
	if va+vb == 0 {
		// Both samples are constant: they differ exactly when their
		// values do.
		if diff == 0 {
			return Welch{T: 0, DF: float64(a.N + b.N - 2), P: 1, Tested: true}
		}
		return Welch{T: math.Copysign(math.Inf(1), diff), DF: float64(a.N + b.N - 2), P: 0, Tested: true}
	}
	t := diff / math.Sqrt(va+vb)
	df := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	p := 2 * (1 - stats.StudentCDF(math.Abs(t), df))
	return Welch{T: t, DF: df, P: math.Min(1, math.Max(0, p)), Tested: true}
}
