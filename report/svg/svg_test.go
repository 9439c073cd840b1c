package svg

import (
	"strings"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		hi   float64
		want string
		dec  int
	}{
		{401.8, "0 100 200 300 400 500", 0}, {2.6, "0 1 2 3", 0}, {0.9, "0 0.2 0.4 0.6 0.8 1", 1},
		{12, "0 2.5 5 7.5 10 12.5", 1}, {0, "0 0.2 0.4 0.6 0.8 1", 1},
	} {
		ticks, dec := niceTicks(0, c.hi)
		var s []string
		for _, x := range ticks {
			s = append(s, strings.TrimSuffix(strings.TrimRight(f(x), "0"), "."))
		}
		if strings.Join(s, " ") != c.want || dec != c.dec {
			t.Errorf("niceTicks(0, %v) = %v (%d decimals), want %s (%d)", c.hi, s, dec, c.want, c.dec)
		}
	}
}
