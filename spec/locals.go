package spec

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/spec/diag"
)

// evalLocals evaluates the attributes of all locals blocks in dependency
// order: a local may use other locals, variables and the matrix. A cycle
// is reported at each local that takes part in it.
func evalLocals(attrs []*hcl.Attribute, ctx *hcl.EvalContext) (map[string]cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	vals := map[string]cty.Value{}
	pending := map[string]*hcl.Attribute{}
	for _, a := range attrs {
		pending[a.Name] = a
	}
	child := ctx.NewChild()
	for len(pending) > 0 {
		progressed := false
		names := make([]string, 0, len(pending))
		for n := range pending {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			a := pending[name]
			if !localsReady(a, pending) {
				continue
			}
			child.Variables = map[string]cty.Value{"local": cty.ObjectVal(vals)}
			v, vdiags := evalExpr(a.Expr, child)
			diags = append(diags, vdiags...)
			if vdiags.HasErrors() {
				v = cty.DynamicVal
			}
			vals[name] = v
			delete(pending, name)
			progressed = true
		}
		if !progressed {
			for _, name := range names {
				a := pending[name]
				diags = append(diags, diag.Errorf(a.NameRange, "Cycle in locals",
					fmt.Sprintf("local.%s depends on itself through other locals.", name)))
				vals[name] = cty.DynamicVal
			}
			break
		}
	}
	return vals, diags
}

// localsReady reports whether every local a refers to is evaluated.
func localsReady(a *hcl.Attribute, pending map[string]*hcl.Attribute) bool {
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "local" || len(tr) < 2 {
			continue
		}
		if step, ok := tr[1].(hcl.TraverseAttr); ok {
			if _, waiting := pending[step.Name]; waiting && step.Name != a.Name {
				return false
			}
			if step.Name == a.Name {
				// A local that names itself is a cycle of one.
				return false
			}
		}
	}
	return true
}
