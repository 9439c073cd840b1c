package fields

import (
	"errors"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestConvertScalars(t *testing.T) {
	cases := []struct {
		f    Field
		in   cty.Value
		want any
	}{
		{Field{Name: "n", Kind: Int}, cty.NumberIntVal(7), int64(7)},
		{Field{Name: "n", Kind: Int}, cty.StringVal("7"), int64(7)},
		{Field{Name: "s", Kind: Size}, cty.StringVal("4MiB"), int64(4 << 20)},
		{Field{Name: "s", Kind: Size}, cty.NumberIntVal(4096), int64(4096)},
		{Field{Name: "x", Kind: Float}, cty.NumberFloatVal(99.9), 99.9},
		{Field{Name: "b", Kind: Bool}, cty.True, true},
		{Field{Name: "e", Kind: Enum, Enum: []string{"a", "b"}}, cty.StringVal("b"), "b"},
		{Field{Name: "d", Kind: Duration}, cty.StringVal("1500ms"), "1.5s"},
		{Field{Name: "d", Kind: Duration}, cty.NumberIntVal(90), "1m30s"},
	}
	for _, c := range cases {
		got, err := c.f.Convert(c.in)
		if err != nil || got != c.want {
			t.Errorf("%s(%#v) = %#v, %v; want %#v", c.f.Kind, c.in, got, err, c.want)
		}
	}
}

func TestConvertLimits(t *testing.T) {
	cases := []struct {
		f    Field
		in   cty.Value
		want string
	}{
		{Field{Name: "n", Kind: Int, Max: Bound(65535)}, cty.NumberIntVal(65536), "above the maximum of 65535"},
		{Field{Name: "n", Kind: Int, Min: Bound(16)}, cty.NumberIntVal(8), "below the minimum of 16"},
		{Field{Name: "n", Kind: Int}, cty.NumberFloatVal(1.5), "not a whole number"},
		{Field{Name: "s", Kind: Size, PowerOfTwo: true}, cty.StringVal("3MiB"), "3MiB is not a power of two"},
		{Field{Name: "s", Kind: Size, Multiple: 4096}, cty.NumberIntVal(1000), "not a multiple of 4KiB"},
		{Field{Name: "s", Kind: Size, Max: Bound(1 << 20)}, cty.StringVal("2MiB"), "above the maximum of 1MiB"},
		{Field{Name: "s", Kind: Size}, cty.True, "a size (a number of bytes or a string"},
		{Field{Name: "d", Kind: Duration, Max: Bound(60)}, cty.StringVal("2m"), "above the maximum of 1m0s"},
		{Field{Name: "d", Kind: Duration}, cty.StringVal("soon"), "not a duration"},
		{Field{Name: "d", Kind: Duration}, cty.NumberFloatVal(1e12), "longer than any test"},
		{Field{Name: "b", Kind: Bool}, cty.StringVal("maybe"), "true or false"},
		{Field{Name: "s", Kind: String}, cty.ListValEmpty(cty.String), "a single string is required, not a list"},
		{Field{Name: "l", Kind: String, List: true}, cty.StringVal("x"), "a list of strings is required"},
		{Field{Name: "w", Kind: Int, Sweep: true}, cty.ListValEmpty(cty.Number), "must not be empty"},
		{Field{Name: "w", Kind: Int, Sweep: true}, cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("x")}), "element 1"},
		{Field{Name: "n", Kind: Int}, cty.NullVal(cty.Number), "must not be null"},
	}
	for _, c := range cases {
		got, err := c.f.Convert(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%#v) = %#v, %v; want an error containing %q", c.f.Name, c.in, got, err, c.want)
		}
	}
}

func TestConvertSweepAndList(t *testing.T) {
	sweep := Field{Name: "bs", Kind: Size, Sweep: true}
	one, err := sweep.Convert(cty.StringVal("4KiB"))
	if err != nil || len(one.([]any)) != 1 || one.([]any)[0] != int64(4096) {
		t.Errorf("a single sweep value = %#v, %v; want [4096]", one, err)
	}
	many, err := sweep.Convert(cty.TupleVal([]cty.Value{cty.StringVal("4MiB"), cty.NumberIntVal(512)}))
	if err != nil || len(many.([]any)) != 2 || many.([]any)[1] != int64(512) {
		t.Errorf("a sweep list = %#v, %v", many, err)
	}
	list := Field{Name: "mount", Kind: String, List: true}
	empty, err := list.Convert(cty.ListValEmpty(cty.String))
	if err != nil || len(empty.([]any)) != 0 {
		t.Errorf("an empty list = %#v, %v; want an empty list", empty, err)
	}
}

func TestUnknownChoiceError(t *testing.T) {
	f := Field{Name: "rw", Kind: Enum, Enum: []string{"read", "write"}}
	_, err := f.Convert(cty.StringVal("raed"))
	var uc *UnknownChoiceError
	if !errors.As(err, &uc) || uc.Value != "raed" || len(uc.Choices) != 2 {
		t.Errorf("error = %v, want an UnknownChoiceError for raed", err)
	}
}
