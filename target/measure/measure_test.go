package measure

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
)

func TestSetAdd(t *testing.T) {
	var a, b Set
	a.Metric("read", 10, "MB/s")
	a.Attr("engine", "builtin")
	a.Attr("kept", "yes")
	b.Metric("write", 5, "MB/s")
	b.Attr("engine", "fio")
	a.Add(b)
	want := Set{
		Metrics: []resultframe.Metric{{Name: "read", Value: 10, Unit: "MB/s"}, {Name: "write", Value: 5, Unit: "MB/s"}},
		Attrs:   map[string]string{"engine": "fio", "kept": "yes"},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Add: %+v, want %+v", a, want)
	}
	var empty Set
	empty.Add(Set{})
	if empty.Attrs != nil || empty.Metrics != nil {
		t.Errorf("adding nothing made %+v", empty)
	}
}

// A value JSON cannot carry is kept as an attribute, so that the
// result's frame still encodes.
func TestNotFiniteMetric(t *testing.T) {
	var s Set
	s.Metric("states_possible", math.Inf(1), "")
	s.Metric("ratio", math.NaN(), "x")
	s.Metric("states", 12, "")
	if len(s.Metrics) != 1 || s.Metrics[0].Name != "states" {
		t.Errorf("metrics %+v, want only states", s.Metrics)
	}
	if s.Attrs["not_finite.states_possible"] != "+Inf" || s.Attrs["not_finite.ratio"] != "NaN" {
		t.Errorf("attrs %v", s.Attrs)
	}
	f := resultframe.Result{Recipe: "crash_states", Status: resultframe.StatusOK, Metrics: s.Metrics, Attrs: s.Attrs}
	if _, err := json.Marshal(f); err != nil {
		t.Errorf("the result does not encode: %v", err)
	}
}
