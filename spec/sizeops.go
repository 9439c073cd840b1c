package spec

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/fsbench/fsbench/internal/units"
)

// Spec authors think in sizes: `"4MiB" * 2`, `var.erase_block / "4KiB"`,
// `size > "300MiB"`. HCL's arithmetic only takes numbers, so after parsing we
// swap the arithmetic and comparison operators of every expression for ones
// that also read size strings. A size operand counts in bytes and the
// result is a number of bytes; format_size() turns it back into text.
var sizeOps = map[*hclsyntax.Operation]*hclsyntax.Operation{
	hclsyntax.OpAdd:                sizeArith(func(a, b *big.Float) *big.Float { return new(big.Float).Add(a, b) }),
	hclsyntax.OpSubtract:           sizeArith(func(a, b *big.Float) *big.Float { return new(big.Float).Sub(a, b) }),
	hclsyntax.OpMultiply:           sizeArith(func(a, b *big.Float) *big.Float { return new(big.Float).Mul(a, b) }),
	hclsyntax.OpDivide:             sizeDivide(hclsyntax.OpDivide),
	hclsyntax.OpModulo:             sizeDivide(hclsyntax.OpModulo),
	hclsyntax.OpGreaterThan:        sizeCompare(func(c int) bool { return c > 0 }),
	hclsyntax.OpGreaterThanOrEqual: sizeCompare(func(c int) bool { return c >= 0 }),
	hclsyntax.OpLessThan:           sizeCompare(func(c int) bool { return c < 0 }),
	hclsyntax.OpLessThanOrEqual:    sizeCompare(func(c int) bool { return c <= 0 }),
}

// useSizeOperators rewrites the operators of every binary expression in
// body. It must run once per parsed file, before any evaluation.
func useSizeOperators(body hcl.Body) {
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return
	}
	hclsyntax.VisitAll(sb, func(n hclsyntax.Node) hcl.Diagnostics {
		if e, ok := n.(*hclsyntax.BinaryOpExpr); ok {
			if op, ok := sizeOps[e.Op]; ok {
				e.Op = op
			}
		}
		return nil
	})
}

var dynamicParams = []function.Parameter{
	{Name: "a", Type: cty.DynamicPseudoType, AllowUnknown: true},
	{Name: "b", Type: cty.DynamicPseudoType, AllowUnknown: true},
}

// operand reads a number or a size string. Plain numeric strings ("42")
// keep HCL's usual meaning.
func operand(v cty.Value) (*big.Float, error) {
	if n, err := convert.Convert(v, cty.Number); err == nil {
		if n.IsNull() {
			return nil, function.NewArgErrorf(0, "operand must not be null")
		}
		if f := n.AsBigFloat(); f.IsInf() {
			return nil, function.NewArgErrorf(0, "operand is infinite")
		}
		return n.AsBigFloat(), nil
	}
	if v.Type() == cty.String && !v.IsNull() {
		n, err := units.ParseSize(v.AsString())
		if err != nil {
			return nil, err
		}
		return new(big.Float).SetInt64(n), nil
	}
	return nil, function.NewArgErrorf(0, "a number or a size string is required, not %s", v.Type().FriendlyName())
}

func operands(args []cty.Value) (a, b *big.Float, unknown bool, err error) {
	if !args[0].IsKnown() || !args[1].IsKnown() {
		return nil, nil, true, nil
	}
	if a, err = operand(args[0]); err != nil {
		return nil, nil, false, function.NewArgError(0, err)
	}
	if b, err = operand(args[1]); err != nil {
		return nil, nil, false, function.NewArgError(1, err)
	}
	return a, b, false, nil
}

func sizeArith(f func(a, b *big.Float) *big.Float) *hclsyntax.Operation {
	return sizeOp(cty.Number, func(a, b *big.Float) (cty.Value, error) {
		r := f(a, b)
		if r.IsInf() {
			return cty.NilVal, function.NewArgErrorf(0, "the result is infinite")
		}
		return cty.NumberVal(r), nil
	})
}

// sizeDivide keeps HCL's own division and modulo and only converts the
// operands, refusing a zero divisor, which HCL answers with infinity.
func sizeDivide(orig *hclsyntax.Operation) *hclsyntax.Operation {
	return sizeOp(cty.Number, func(a, b *big.Float) (cty.Value, error) {
		if b.Sign() == 0 {
			return cty.NilVal, function.NewArgErrorf(1, "division by zero")
		}
		return orig.Impl.Call([]cty.Value{cty.NumberVal(a), cty.NumberVal(b)})
	})
}

func sizeCompare(ok func(int) bool) *hclsyntax.Operation {
	return sizeOp(cty.Bool, func(a, b *big.Float) (cty.Value, error) { return cty.BoolVal(ok(a.Cmp(b))), nil })
}

// sizeOp builds a binary operation over numbers or size strings.
func sizeOp(result cty.Type, f func(a, b *big.Float) (cty.Value, error)) *hclsyntax.Operation {
	return &hclsyntax.Operation{Type: result, Impl: function.New(&function.Spec{
		Params: dynamicParams,
		Type:   function.StaticReturnType(result),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			a, b, unknown, err := operands(args)
			if unknown || err != nil {
				return cty.UnknownVal(result), err
			}
			return f(a, b)
		},
	})}
}
