package spec

import (
	"fmt"
	"math/big"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// functions is the spec's function library: the pure parts of cty's
// standard library plus size helpers. Nothing here reads the clock, a
// random source, the environment or a file, so a spec evaluates the same
// everywhere.
func functions() map[string]function.Function {
	fns := library()
	for name, f := range fns {
		fns[name] = bounded(name, f)
	}
	return fns
}

// library is the functions as they come, before bounded wraps them.
func library() map[string]function.Function {
	return map[string]function.Function{
		// sizes
		"size":        sizeFunc,
		"format_size": formatSizeFunc,
		"align_up":    alignFunc(true),
		"align_down":  alignFunc(false),
		"log2":        log2Func,
		// numbers
		"abs":      stdlib.AbsoluteFunc,
		"ceil":     stdlib.CeilFunc,
		"floor":    stdlib.FloorFunc,
		"max":      stdlib.MaxFunc,
		"min":      stdlib.MinFunc,
		"pow":      stdlib.PowFunc,
		"parseint": stdlib.ParseIntFunc,
		// strings
		"format":     stdlib.FormatFunc,
		"formatlist": stdlib.FormatListFunc,
		"join":       stdlib.JoinFunc,
		"split":      stdlib.SplitFunc,
		"lower":      stdlib.LowerFunc,
		"upper":      stdlib.UpperFunc,
		"replace":    stdlib.ReplaceFunc,
		"regex":      stdlib.RegexFunc,
		"substr":     stdlib.SubstrFunc,
		"trimspace":  stdlib.TrimSpaceFunc,
		"trimprefix": stdlib.TrimPrefixFunc,
		"trimsuffix": stdlib.TrimSuffixFunc,
		"strlen":     stdlib.StrlenFunc,
		// collections
		"concat":     stdlib.ConcatFunc,
		"contains":   stdlib.ContainsFunc,
		"distinct":   stdlib.DistinctFunc,
		"flatten":    stdlib.FlattenFunc,
		"keys":       stdlib.KeysFunc,
		"values":     stdlib.ValuesFunc,
		"length":     stdlib.LengthFunc,
		"lookup":     stdlib.LookupFunc,
		"merge":      stdlib.MergeFunc,
		"range":      stdlib.RangeFunc,
		"reverse":    stdlib.ReverseListFunc,
		"setproduct": stdlib.SetProductFunc,
		"slice":      stdlib.SliceFunc,
		"sort":       stdlib.SortFunc,
		"zipmap":     stdlib.ZipmapFunc,
		"element":    stdlib.ElementFunc,
		"coalesce":   stdlib.CoalesceFunc,
		// encoding
		"jsonencode": stdlib.JSONEncodeFunc,
		"jsondecode": stdlib.JSONDecodeFunc,
		"csvdecode":  stdlib.CSVDecodeFunc,
	}
}

var sizeFunc = function.New(&function.Spec{
	Description: "Returns the number of bytes in a size such as \"4MiB\".",
	Params:      []function.Parameter{{Name: "size", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		n, err := fields.SizeValue(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return cty.NumberIntVal(n), nil
	},
})

var formatSizeFunc = function.New(&function.Spec{
	Description: "Writes a number of bytes with the largest binary unit that divides it (\"8MiB\").",
	Params:      []function.Parameter{{Name: "bytes", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		n, err := fields.SizeValue(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		return cty.StringVal(units.FormatSize(n)), nil
	},
})

func alignFunc(up bool) function.Function {
	return function.New(&function.Spec{
		Description: "Rounds a size to a multiple of an alignment, both in bytes or size strings.",
		Params: []function.Parameter{
			{Name: "size", Type: cty.DynamicPseudoType},
			{Name: "align", Type: cty.DynamicPseudoType},
		},
		Type: function.StaticReturnType(cty.Number),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			n, err := fields.SizeValue(args[0])
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			a, err := fields.SizeValue(args[1])
			if err != nil {
				return cty.NilVal, function.NewArgError(1, err)
			}
			if a <= 0 {
				return cty.NilVal, function.NewArgErrorf(1, "alignment must be positive")
			}
			r := n / a * a
			if up && r < n {
				r += a
			}
			return cty.NumberIntVal(r), nil
		},
	})
}

var log2Func = function.New(&function.Spec{
	Description: "Returns the base-2 logarithm of a power of two.",
	Params:      []function.Parameter{{Name: "n", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		n, err := fields.SizeValue(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		if !units.IsPowerOfTwo(n) {
			return cty.NilVal, function.NewArgError(0, fmt.Errorf("%d is not a power of two", n))
		}
		e := 0
		for n > 1 {
			n >>= 1
			e++
		}
		return cty.NumberVal(new(big.Float).SetInt64(int64(e))), nil
	},
})
