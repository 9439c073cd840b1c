package stats

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Two-sided 95% critical values of Student's t, as printed in every
// statistics table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
func TestTQuantileMatchesTables(t *testing.T) {
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.7062}, {0.975, 2, 4.3027}, {0.975, 3, 3.1824}, {0.975, 4, 2.7764},
		{0.975, 5, 2.5706}, {0.975, 9, 2.2622}, {0.975, 10, 2.2281}, {0.975, 20, 2.0860},
		{0.975, 30, 2.0423}, {0.975, 100, 1.9840}, {0.975, 1e6, 1.9600},
		{0.95, 10, 1.8125}, {0.99, 5, 3.3649}, {0.995, 2, 9.9248}, {0.9, 1, 3.0777},
		{0.025, 4, -2.7764}, {0.5, 7, 0},
	} {
		if got := TQuantile(c.p, c.df); !near(got, c.want, 5e-5) {
			t.Errorf("TQuantile(%v, %v) = %.6f, want %.4f", c.p, c.df, got, c.want)
		}
	}
}

func TestStudentCDF(t *testing.T) {
	// df=1 is the Cauchy distribution: CDF(t) = 1/2 + atan(t)/pi.
	for _, x := range []float64{-10, -1, -0.3, 0, 0.5, 2, 50} {
		want := 0.5 + math.Atan(x)/math.Pi
		if got := StudentCDF(x, 1); !near(got, want, 1e-12) {
			t.Errorf("StudentCDF(%v, 1) = %v, want %v", x, got, want)
		}
	}
	// df=2 has a closed form too: 1/2 + t / (2 sqrt(2 + t^2)).
	for _, x := range []float64{-3, -0.1, 1, 4} {
		want := 0.5 + x/(2*math.Sqrt(2+x*x))
		if got := StudentCDF(x, 2); !near(got, want, 1e-12) {
			t.Errorf("StudentCDF(%v, 2) = %v, want %v", x, got, want)
		}
	}
}
