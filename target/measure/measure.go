// Package measure is what a workload or a check hands back to the recipe
// that ran it: named values with their units, and attributes that say how
// they were obtained. The recipe adds them to its iteration's outcome;
// the runner frames them as a result.
//
// It holds no behaviour beyond collecting, so that the target's
// workloads and the crash machinery can return their figures without
// knowing the runner.
package measure

import (
	"math"
	"strconv"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Set is a collection of metrics, in the order they were added, and
// attributes.
type Set struct {
	Metrics []resultframe.Metric
	Attrs   map[string]string
}

// Metric adds the value v of name, in unit ("" for a count or a code).
// Metric and Attr are called at a few hundred places of the runner;
// inlined there, they would add some 50KB to it.
//
//go:noinline
func (s *Set) Metric(name string, v float64, unit string) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		// JSON has no such number: the result's frame would not encode.
		s.Attr("not_finite."+name, strconv.FormatFloat(v, 'g', -1, 64))
		return
	}
	s.Metrics = append(s.Metrics, resultframe.Metric{Name: name, Value: v, Unit: unit})
}

// Attr sets the attribute k to v.
//
//go:noinline
func (s *Set) Attr(k, v string) {
	if s.Attrs == nil {
		s.Attrs = map[string]string{}
	}
	s.Attrs[k] = v
}

// Add adds o's metrics after s's and o's attributes over s's.
func (s *Set) Add(o Set) {
	s.Metrics = append(s.Metrics, o.Metrics...)
	for k, v := range o.Attrs {
		s.Attr(k, v)
	}
}
