package stats

import "math"

// Level is the confidence level of every interval fsbench computes.
const Level = 0.95

// Rule is a settle block: repeat a measurement until the Level confidence
// interval of its mean is within CI (a fraction: 0.05 for "5%") of the
// mean, after at least Min and at most Max samples.
type Rule struct {
	CI       float64
	Min, Max int
}

// Reason says why a series stops or goes on.
type Reason string

// The outcomes of Rule.Decide.
const (
	Continue Reason = "continue" // not settled and below Max
	Settled  Reason = "settled"  // the interval is within CI, and Min is reached
	MaxN     Reason = "max"      // Max samples were taken without settling
)

// Decision is the state of a series after its latest sample.
type Decision struct {
	Reason Reason
	// Width is the interval's relative half-width (0.031 for ±3.1% of
	// the mean); NaN with fewer than two samples, +Inf when the mean is
	// zero and the samples differ.
	Width float64
}

// Stop reports whether the series is complete.
func (d Decision) Stop() bool { return d.Reason != Continue }

// Decide applies the rule to a series of samples. taken counts the
// attempts made so far, samples that failed included: Max bounds the
// attempts, Min counts the samples only.
func (r Rule) Decide(samples []float64, taken int) Decision {
	d := Decision{Reason: Continue, Width: RelativeHalfWidth(samples)}
	switch {
	case len(samples) >= max(r.Min, 2) && d.Width <= r.CI:
		d.Reason = Settled
	case taken >= r.Max:
		d.Reason = MaxN
	}
	return d
}

// RelativeHalfWidth is the half-width of the Level confidence interval of
// the mean of samples, as a fraction of the mean. It takes the wider of
// two intervals:
//   - Student's t on the values themselves, the interval the report
//     prints, exact for normal samples of any size;
//   - Student's t on their logarithms when every value is positive,
//     measured on the upper side (exp(h) - 1). Timings and rates are
//     right-skewed: a few slow runs stretch the upper tail, and on the
//     log scale such a sample is close to normal, so this interval keeps
//     its coverage where the first one is too narrow.
//
// A constant series has width 0; fewer than two samples give NaN.
func RelativeHalfWidth(samples []float64) float64 {
	n := len(samples)
	if n < 2 {
		return math.NaN()
	}
	t := TQuantile(1-(1-Level)/2, float64(n-1))
	mean, sd := meanSD(samples)
	var w float64
	switch {
	case sd == 0:
		w = 0
	case mean == 0:
		return math.Inf(1)
	default:
		w = t * sd / math.Sqrt(float64(n)) / math.Abs(mean)
	}
	logs := make([]float64, n)
	for i, v := range samples {
		if v <= 0 {
			return w
		}
		logs[i] = math.Log(v)
	}
	_, lsd := meanSD(logs)
	return math.Max(w, math.Expm1(t*lsd/math.Sqrt(float64(n))))
}

// meanSD is the mean and the sample standard deviation (n-1).
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}
