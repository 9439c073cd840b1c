package recipes

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// ctyOf turns a Go value of the kinds Field.Convert returns into the cty
// value an HCL attribute would hold, so defaults can be fed back through
// Convert.
func ctyOf(t *testing.T, v any) cty.Value {
	t.Helper()
	switch x := v.(type) {
	case int64:
		return cty.NumberIntVal(x)
	case float64:
		return cty.NumberFloatVal(x)
	case bool:
		return cty.BoolVal(x)
	case string:
		return cty.StringVal(x)
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal
		}
		elems := make([]cty.Value, len(x))
		for i, e := range x {
			elems[i] = ctyOf(t, e)
		}
		return cty.TupleVal(elems)
	}
	t.Fatalf("no cty form for %T %v", v, v)
	return cty.NilVal
}

func mustLookup(t *testing.T, name string) *Recipe {
	t.Helper()
	r, ok := Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q) found nothing", name)
	}
	return r
}
