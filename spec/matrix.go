package spec

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/fsbench/fsbench/spec/diag"
)

// axis is one matrix block: a named list of choices.
type axis struct {
	Name    string
	Choices []MatrixChoice
	Decl    hcl.Range
}

var matrixSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "values", Required: true}, {Name: "description"}},
}

var choiceKey = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// decodeAxis reads a matrix block. Its values may use variables only: a
// matrix decides which variants exist, so it cannot depend on one.
//
//	matrix "fs"     { values = ["ext4", "f2fs"] }                  // keys are the values
//	matrix "tuning" { values = { plain = {}, tuned = { ... } } }   // keys name the values
func decodeAxis(b *hcl.Block, ctx *hcl.EvalContext) (*axis, hcl.Diagnostics) {
	ax := &axis{Name: b.Labels[0], Decl: b.DefRange}
	c, diags := b.Body.Content(matrixSchema)
	if diags.HasErrors() {
		return ax, diags
	}
	attr := c.Attributes["values"]
	v, vdiags := evalExpr(attr.Expr, ctx)
	diags = append(diags, vdiags...)
	if vdiags.HasErrors() {
		return ax, diags
	}
	bad := func(format string, args ...any) (*axis, hcl.Diagnostics) {
		return ax, append(diags, diag.Errorf(attr.Expr.Range(), "Invalid matrix values", fmt.Sprintf(format, args...)))
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		return bad("The values of matrix %q must be known when the spec is read.", ax.Name)
	}
	ty := v.Type()
	switch {
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if !ev.Type().IsPrimitiveType() || ev.IsNull() {
				return bad("A list of matrix values may hold only strings, numbers and bools; use a map to name richer values, as in values = { plain = {...}, tuned = {...} }.")
			}
			sv, _ := convert.Convert(ev, cty.String)
			ax.Choices = append(ax.Choices, MatrixChoice{Axis: ax.Name, Key: sv.AsString(), Value: ev})
		}
	case ty.IsMapType() || ty.IsObjectType():
		// Object attributes iterate in lexical order: the variant order is
		// stable but not the order written. Say so in the docs.
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			ax.Choices = append(ax.Choices, MatrixChoice{Axis: ax.Name, Key: k.AsString(), Value: ev})
		}
	default:
		return bad("Matrix %q needs a list or a map of values, not %s.", ax.Name, ty.FriendlyName())
	}
	if len(ax.Choices) == 0 {
		return bad("Matrix %q has no values; a matrix with no values would give no variants at all.", ax.Name)
	}
	seen := map[string]bool{}
	for _, ch := range ax.Choices {
		if !choiceKey.MatchString(ch.Key) {
			return bad("Matrix value %q cannot name a variant: use letters, digits, '.', '_', '+' and '-'.", ch.Key)
		}
		if seen[ch.Key] {
			return bad("Matrix %q lists %q twice.", ax.Name, ch.Key)
		}
		seen[ch.Key] = true
	}
	return ax, diags
}

// combinations returns the cartesian product of the axes, the first axis
// varying slowest, so variants come out in the order a reader expects.
func combinations(axes []*axis) [][]MatrixChoice {
	out := [][]MatrixChoice{nil}
	for _, ax := range axes {
		var next [][]MatrixChoice
		for _, prefix := range out {
			for _, ch := range ax.Choices {
				combo := append(append([]MatrixChoice(nil), prefix...), ch)
				next = append(next, combo)
			}
		}
		out = next
	}
	return out
}

// variantName joins the choice keys: "ext4-tuned". A spec without a matrix
// has one variant called "default".
func variantName(combo []MatrixChoice) string {
	if len(combo) == 0 {
		return "default"
	}
	keys := make([]string, len(combo))
	for i, ch := range combo {
		keys[i] = ch.Key
	}
	return strings.Join(keys, "-")
}

func matrixObject(combo []MatrixChoice) cty.Value {
	m := map[string]cty.Value{}
	for _, ch := range combo {
		m[ch.Axis] = ch.Value
	}
	return cty.ObjectVal(m)
}

// MaxVariants bounds the matrix: a study of more variants than this is a
// mistake (range(60) on three axes), and would only exhaust memory.
const MaxVariants = 4096

func checkVariantCount(axes []*axis) hcl.Diagnostics {
	n := 1
	for _, ax := range axes {
		n *= len(ax.Choices)
		if n > MaxVariants {
			return hcl.Diagnostics{diag.Errorf(ax.Decl, "Too many variants",
				fmt.Sprintf("The matrix up to %q already gives more than %d variants; narrow its values.", ax.Name, MaxVariants))}
		}
	}
	return nil
}
