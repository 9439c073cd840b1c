package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// Reading a result's attributes and metrics by name, for the sections
// that need one iteration's values rather than the aggregated rows.

// metricOf returns a metric of r.
func metricOf(r *resultframe.Result, name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// attrInt reads an attribute that holds a whole number of bytes (or a
// count); ok is false when the result does not carry it.
func attrInt(r *resultframe.Result, key string) (n int64, ok bool, err error) {
	s, found := r.Attrs[key]
	if !found {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, true, fmt.Errorf("attribute %s = %q is not a positive whole number", key, s)
	}
	return n, true, nil
}

// attrFloat reads an attribute that holds a number.
func attrFloat(r *resultframe.Result, key string) (f float64, ok bool, err error) {
	s, found := r.Attrs[key]
	if !found {
		return 0, false, nil
	}
	f, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, true, fmt.Errorf("attribute %s = %q is not a number", key, s)
	}
	return f, true, nil
}

// sizeText writes a byte count as the spec writes sizes ("8MiB") when it
// is a whole number of the largest binary unit not above it, else rounded
// to a tenth of that unit ("7.5GiB").
func sizeText(n float64) string {
	i := int64(math.Round(n))
	for _, u := range []int64{units.TiB, units.GiB, units.MiB, units.KiB} {
		if i >= u {
			if i%u == 0 {
				return units.FormatSize(i)
			}
			return units.HumanSize(i)
		}
	}
	return units.HumanSize(i)
}
