package filesystems

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/suggest"
)

// recheck runs a converted tuning value through its field again. Resolve
// cannot trust that every caller used fields.Field.Convert, and going back
// through cty gives the same messages the spec decoder gives.
func recheck(f fields.Field, v any) (any, error) {
	cv, err := toCty(v)
	if err != nil {
		return nil, err
	}
	return f.Convert(cv)
}

func toCty(v any) (cty.Value, error) {
	switch x := v.(type) {
	case int64:
		return cty.NumberIntVal(x), nil
	case int:
		return cty.NumberIntVal(int64(x)), nil
	case float64:
		return cty.NumberFloatVal(x), nil
	case bool:
		return cty.BoolVal(x), nil
	case string:
		return cty.StringVal(x), nil
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal, nil
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			ev, err := toCty(e)
			if err != nil {
				return cty.NilVal, fmt.Errorf("element %d: %w", i, err)
			}
			vals[i] = ev
		}
		return cty.TupleVal(vals), nil
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return toCty(l)
	}
	return cty.NilVal, fmt.Errorf("unsupported value %v of type %T", v, v)
}

func intField(name string, min, max float64, doc string) fields.Field {
	return fields.Field{Name: name, Kind: fields.Int, Min: fields.Bound(min), Max: fields.Bound(max), Doc: doc}
}

func boolField(name, doc string) fields.Field {
	return fields.Field{Name: name, Kind: fields.Bool, Doc: doc}
}

func enumField(name string, choices []string, doc string) fields.Field {
	return fields.Field{Name: name, Kind: fields.Enum, Enum: choices, Doc: doc}
}

// didYouMean returns " Did you mean "x"?" for the closest candidate, or "".
func didYouMean(got string, candidates []string) string {
	if best := suggest.Closest(got, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %q?", best)
	}
	return ""
}
