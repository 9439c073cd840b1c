package measure

import (
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
