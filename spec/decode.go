package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/spec/diag"
)

// decoder collects the diagnostics of one variant's evaluation.
type decoder struct {
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
}

func (d *decoder) add(ds ...*hcl.Diagnostic) { d.diags = append(d.diags, ds...) }

func (d *decoder) errorf(rng hcl.Range, summary, format string, args ...any) {
	d.add(diag.Errorf(rng, summary, fmt.Sprintf(format, args...)))
}

// content checks body against schema; unknown attributes and blocks are
// reported with hcl's own "did you mean" suggestions.
func (d *decoder) content(body hcl.Body, schema *hcl.BodySchema) *hcl.BodyContent {
	c, diags := body.Content(schema)
	d.diags = append(d.diags, diags...)
	return c
}

func newRanges(decl hcl.Range, attrs hcl.Attributes) Ranges {
	r := Ranges{Decl: decl, Attrs: map[string]hcl.Range{}, Elems: map[string][]hcl.Range{}}
	for name, a := range attrs {
		r.Attrs[name] = a.Expr.Range()
		if tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
			for _, e := range tuple.Exprs {
				r.Elems[name] = append(r.Elems[name], e.Range())
			}
		}
	}
	return r
}

// value evaluates an attribute; ok is false when it failed (and was
// reported) or is null.
func (d *decoder) value(a *hcl.Attribute) (cty.Value, bool) {
	v, diags := evalExpr(a.Expr, d.ctx)
	d.diags = append(d.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		// Nothing in a spec is decided later: an unknown value stands in
		// for one whose error was already reported.
		return cty.NilVal, false
	}
	v, _ = v.UnmarkDeep()
	return v, !v.IsNull()
}

// field evaluates an attribute as a typed field; with no attribute it
// returns the field's default.
func (d *decoder) field(attrs hcl.Attributes, f fields.Field, summary string) (any, bool) {
	a, ok := attrs[f.Name]
	if !ok {
		return f.Default, f.Default != nil
	}
	v, ok := d.value(a)
	if !ok {
		return f.Default, false
	}
	x, err := f.Convert(v)
	if err != nil {
		d.add(fieldError(a, f, summary, err))
		return f.Default, false
	}
	return x, true
}

func fieldError(a *hcl.Attribute, f fields.Field, summary string, err error) *hcl.Diagnostic {
	detail := fmt.Sprintf("%s: %s.", f.Name, err)
	var uc *fields.UnknownChoiceError
	if errors.As(err, &uc) {
		detail = fmt.Sprintf("%s must be one of %s, not %q.%s", f.Name, quoteAll(uc.Choices), uc.Value, diag.DidYouMean(uc.Value, uc.Choices))
	}
	if f.Doc != "" {
		detail += " (" + f.Name + ": " + f.Doc + ")"
	}
	return diag.Errorf(a.Expr.Range(), summary, detail)
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// Typed shortcuts over field(); each returns the zero value when the
// attribute is absent or wrong.

func (d *decoder) str(attrs hcl.Attributes, name, summary string) string {
	x, _ := d.field(attrs, fields.Field{Name: name, Kind: fields.String}, summary)
	s, _ := x.(string)
	return s
}

func (d *decoder) enum(attrs hcl.Attributes, name, def, summary string, choices ...string) string {
	x, _ := d.field(attrs, fields.Field{Name: name, Kind: fields.Enum, Enum: choices, Default: def}, summary)
	s, _ := x.(string)
	return s
}

func (d *decoder) size(attrs hcl.Attributes, name string, def int64, summary string) int64 {
	n, _ := d.sizeOK(attrs, name, def, summary)
	return n
}

// sizeOK is size that also tells whether the attribute was written and
// converted cleanly, so that callers check the value only then.
func (d *decoder) sizeOK(attrs hcl.Attributes, name string, def int64, summary string) (int64, bool) {
	var dv any
	if def != 0 {
		dv = def
	}
	x, ok := d.field(attrs, fields.Field{Name: name, Kind: fields.Size, Default: dv}, summary)
	n, _ := x.(int64)
	_, written := attrs[name]
	return n, ok && written
}

func (d *decoder) boolean(attrs hcl.Attributes, name, summary string) bool {
	x, _ := d.field(attrs, fields.Field{Name: name, Kind: fields.Bool}, summary)
	b, _ := x.(bool)
	return b
}

func (d *decoder) optBool(attrs hcl.Attributes, name, summary string) *bool {
	x, ok := d.field(attrs, fields.Field{Name: name, Kind: fields.Bool}, summary)
	if b, isBool := x.(bool); ok && isBool {
		return &b
	}
	return nil
}

func (d *decoder) strings(attrs hcl.Attributes, name, summary string) []string {
	x, ok := d.field(attrs, fields.Field{Name: name, Kind: fields.String, List: true}, summary)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range x.([]any) {
		out = append(out, e.(string))
	}
	return out
}
