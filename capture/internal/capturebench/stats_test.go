package main

import (
	"math"
	"testing"
)

// A constant delay is no error; a late reference line makes every other
// line look early by as much, which the lag figures do not see.
func TestLineErrors(t *testing.T) {
	sends := []float64{0, 1, 2, 3, 4}
	stamps := []float64{0.5, 1.5, 2.5, 3.5, 4.5}
	if f := lineErrors(stamps, sends, 2, 4); f.Max != 0 || f.LagP99 != 0 {
		t.Errorf("constant delay: %+v", f)
	}
	stamps[2] += 0.1
	f := lineErrors(stamps, sends, 2, 4)
	if math.Abs(f.Median-0.1) > 1e-9 || math.Abs(f.Interval-0.1) > 1e-9 {
		t.Errorf("late reference: median %g, interval %g, want 0.1", f.Median, f.Interval)
	}
	if f.LagMedian != 0 || math.Abs(f.LagP99-0.1) > 1e-9 {
		t.Errorf("late reference: lag median %g, p99 %g, want 0 and 0.1", f.LagMedian, f.LagP99)
	}
}
