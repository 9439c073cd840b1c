package report

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestSummarizeKnownSample(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s.N != 5 || s.Mean != 3 || s.Median != 3 || s.Min != 1 || s.Max != 5 {
		t.Fatalf("summary %+v", s)
	}
	// sd = sqrt(2.5); half width = 2.776445 * sqrt(2.5) / sqrt(5).
	if !near(s.Stddev, math.Sqrt(2.5), 1e-12) || !near(s.CV, 100*math.Sqrt(2.5)/3, 1e-9) {
		t.Errorf("stddev %v, cv %v", s.Stddev, s.CV)
	}
	if !near(s.CILow, 1.036756, 1e-5) || !near(s.CIHigh, 4.963244, 1e-5) {
		t.Errorf("95%% CI [%v, %v], want [1.036756, 4.963244]", s.CILow, s.CIHigh)
	}
	if even := Summarize([]float64{4, 1, 3, 2}); even.Median != 2.5 {
		t.Errorf("median of 1..4 is %v", even.Median)
	}
	one := Summarize([]float64{7})
	if one.HasSpread || one.HasCV || one.CILow != 7 || one.CIHigh != 7 {
		t.Errorf("one value: %+v", one)
	}
	if z := Summarize([]float64{-1, 1}); z.HasCV {
		t.Errorf("a zero mean has no coefficient of variation: %+v", z)
	}
}

// The two examples of the Wikipedia article "Welch's t-test", whose
// t, degrees of freedom and p-values are published.
func TestWelchTest(t *testing.T) {
	a1 := Summarize([]float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4})
	a2 := Summarize([]float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4})
	w := WelchTest(a1, a2)
	if !near(w.T, -2.46, 0.005) || !near(w.DF, 24.99, 0.005) || !near(w.P, 0.021, 0.0005) || !w.Significant() {
		t.Errorf("example 1: %+v, want t=-2.46 df=24.99 p=0.021, significant", w)
	}
	b1 := Summarize([]float64{17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8})
	b2 := Summarize([]float64{21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
		20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8})
	w = WelchTest(b1, b2)
	if !near(w.T, -1.57, 0.005) || !near(w.DF, 9.9, 0.05) || !near(w.P, 0.149, 0.0005) || w.Significant() {
		t.Errorf("example 2: %+v, want t=-1.57 df=9.9 p=0.149, not significant", w)
	}
	if w := WelchTest(b1, b1); w.P != 1 || w.Significant() {
		t.Errorf("a sample against itself: %+v", w)
	}
	if w := WelchTest(Summarize([]float64{1}), b1); w.Tested {
		t.Errorf("one value cannot be tested: %+v", w)
	}
	if w := WelchTest(Summarize([]float64{2, 2}), Summarize([]float64{3, 3})); !w.Significant() {
		t.Errorf("two different constants: %+v", w)
	}
}
