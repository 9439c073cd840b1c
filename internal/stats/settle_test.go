package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// series runs the rule on samples drawn one at a time, as the runner
// does, and returns the decision that stopped it and the samples taken.
func series(r Rule, draw func() float64) (Decision, []float64) {
	var s []float64
	for taken := 1; ; taken++ {
		s = append(s, draw())
		if d := r.Decide(s, taken); d.Stop() {
			return d, s
		}
	}
}

func TestSettleConstantStopsAtMin(t *testing.T) {
	r := Rule{CI: 0.05, Min: 3, Max: 30}
	d, s := series(r, func() float64 { return 4.2 })
	if d.Reason != Settled || len(s) != 3 || d.Width != 0 {
		t.Fatalf("constant series: %+v after %d samples, want settled after 3 with width 0", d, len(s))
	}
	// min below 2 still needs two samples for an interval.
	d, s = series(Rule{CI: 0.05, Min: 1, Max: 30}, func() float64 { return 4.2 })
	if d.Reason != Settled || len(s) != 2 {
		t.Fatalf("min 1: %+v after %d samples, want settled after 2", d, len(s))
	}
}

func TestSettleHandComputed(t *testing.T) {
	// 9, 11: mean 10, sd sqrt(2), t(0.975, 1) = 12.706: raw half-width
	// 12.706 * sqrt(2) / sqrt(2) / 10 = 127% of the mean; logs: sd
	// ln(11/9) / sqrt(2), expm1(12.706 * ln(11/9) / 2) = 258%, which
	// decides at n = 2, where the upper tail is wide.
	if w := RelativeHalfWidth([]float64{9, 11}); math.Abs(w-math.Expm1(12.7062*math.Log(11.0/9)/2)) > 1e-3 {
		t.Errorf("width of {9, 11} = %v, want 2.578", w)
	}
	if w := RelativeHalfWidth([]float64{-9, 11, 8}); w < 1 {
		t.Errorf("width of {-9, 11, 8} = %v", w)
	}
	// 1, 2, 4 (log-symmetric): raw mean 7/3, sd 1.5275, t(2) = 4.3027:
	// raw 4.3027 * 1.5275 / sqrt(3) / (7/3) = 1.6262; log sd = ln 2,
	// expm1(4.3027 * 0.6931 / sqrt(3)) = 4.6 — the log one decides.
	w := RelativeHalfWidth([]float64{1, 2, 4})
	if want := math.Expm1(4.30265 * math.Ln2 / math.Sqrt(3)); math.Abs(w-want) > 1e-4 {
		t.Errorf("width of {1, 2, 4} = %v, want %v", w, want)
	}
	// A zero or negative value leaves the raw interval alone.
	if w := RelativeHalfWidth([]float64{-1, 1, 3}); math.Abs(w-4.30265*2/math.Sqrt(3)/1) > 1e-4 {
		t.Errorf("width of {-1, 1, 3} = %v", w)
	}
	if w := RelativeHalfWidth([]float64{-1, 1}); !math.IsInf(w, 1) {
		t.Errorf("width around a zero mean = %v, want +Inf", w)
	}
	if w := RelativeHalfWidth([]float64{3}); !math.IsNaN(w) {
		t.Errorf("width of one sample = %v, want NaN", w)
	}
}

func TestSettleNeverBeforeMinAlwaysByMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		r := Rule{CI: 0.02 + 0.1*rng.Float64(), Min: 2 + rng.IntN(6), Max: 8 + rng.IntN(30)}
		sd := 0.2 * rng.Float64()
		taken := 0
		d, s := series(r, func() float64 { taken++; return 10 * (1 + sd*rng.NormFloat64()) })
		switch {
		case len(s) > r.Max:
			t.Fatalf("series %d: %d samples beyond max %d", i, len(s), r.Max)
		case d.Reason == Settled && len(s) < r.Min:
			t.Fatalf("series %d: settled after %d samples, min %d", i, len(s), r.Min)
		case d.Reason == Settled && d.Width > r.CI:
			t.Fatalf("series %d: settled with width %v > %v", i, d.Width, r.CI)
		case d.Reason == MaxN && len(s) != r.Max:
			t.Fatalf("series %d: stopped by max after %d of %d", i, len(s), r.Max)
		}
	}
	// Failed attempts count toward max, not toward min.
	r := Rule{CI: 0.05, Min: 3, Max: 4}
	if d := r.Decide([]float64{5, 5}, 4); d.Reason != MaxN {
		t.Errorf("2 samples of 4 attempts, min 3: %v, want max", d.Reason)
	}
	if d := r.Decide([]float64{5, 5}, 3); d.Reason != Continue {
		t.Errorf("2 samples of 3 attempts, min 3: %v, want continue", d.Reason)
	}
}

// With a known spread the rule stops where the textbook sample size
// says: for a coefficient of variation c and a target half-width h, about
// n = (z c / h)^2 samples.
func TestSettleStopsWhenItShould(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const cv, ci = 0.05, 0.02
	want := math.Pow(1.96*cv/ci, 2) // 24
	var sum float64
	covered := 0
	const runs = 400
	for range runs {
		d, s := series(Rule{CI: ci, Min: 3, Max: 200}, func() float64 { return 100 * (1 + cv*rng.NormFloat64()) })
		if d.Reason != Settled {
			t.Fatalf("did not settle in 200 samples (%v)", d)
		}
		sum += float64(len(s))
		m, _ := meanSD(s)
		if math.Abs(m-100) <= d.Width*m {
			covered++
		}
	}
	mean := sum / runs
	if mean < 0.8*want || mean > 1.2*want {
		t.Errorf("mean stopping size %.1f, want about %.0f", mean, want)
	}
	// Optional stopping costs some coverage; it must stay near 95%.
	if c := float64(covered) / runs; c < 0.88 {
		t.Errorf("coverage of the true mean %.3f, want at least 0.88", c)
	}
}

// A right-skewed timing (lognormal, as boot and fsync times are): the log
// interval keeps the rule from stopping on a sample that has not yet
// seen the tail.
func TestSettleSkewedCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const sigma = 0.6
	trueMean := math.Exp(sigma * sigma / 2)
	covered := 0
	const runs = 400
	for range runs {
		d, s := series(Rule{CI: 0.10, Min: 3, Max: 400}, func() float64 { return math.Exp(sigma * rng.NormFloat64()) })
		m, _ := meanSD(s)
		if d.Reason == Settled && math.Abs(m-trueMean) <= d.Width*m {
			covered++
		}
	}
	if c := float64(covered) / runs; c < 0.88 {
		t.Errorf("coverage of the lognormal mean %.3f, want at least 0.88", c)
	}
}
