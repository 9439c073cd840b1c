package spec

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/fsbench/fsbench/spec/diag"
)

// checkReferences reports every var.NAME and local.NAME that names nothing,
// with a suggestion, before evaluation runs into them. Evaluation would
// say only "This object does not have an attribute named ...", once per
// variant; those diagnostics are dropped by dropShadowed.
func checkReferences(body hcl.Body, decls map[string]*variable, locals []*hcl.Attribute) hcl.Diagnostics {
	vars, localNames := map[string]bool{}, map[string]bool{}
	for name := range decls {
		vars[name] = true
	}
	for _, a := range locals {
		localNames[a.Name] = true
	}
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	hclsyntax.VisitAll(sb, func(n hclsyntax.Node) hcl.Diagnostics {
		e, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(e.Traversal) < 2 {
			return nil
		}
		step, ok := e.Traversal[1].(hcl.TraverseAttr)
		if !ok {
			return nil
		}
		switch root := e.Traversal.RootName(); {
		case root == "var" && !vars[step.Name]:
			diags = append(diags, diag.Errorf(e.SrcRange, "Reference to undeclared variable",
				fmt.Sprintf("No variable %q is declared.%s Declare it with a variable block.", step.Name, diag.DidYouMean(step.Name, keys(vars)))))
		case root == "local" && !localNames[step.Name]:
			diags = append(diags, diag.Errorf(e.SrcRange, "Reference to undefined local",
				fmt.Sprintf("No local %q is defined.%s", step.Name, diag.DidYouMean(step.Name, keys(localNames)))))
		}
		return nil
	})
	return diags
}

// dropShadowed removes evaluation errors that lie inside a range a
// reference check already reported.
func dropShadowed(diags, reported hcl.Diagnostics) hcl.Diagnostics {
	if len(reported) == 0 {
		return diags
	}
	out := diags[:0:0]
	for _, d := range diags {
		shadowed := false
		for _, r := range reported {
			if d != r && d.Subject != nil && r.Subject != nil && d.Subject.Filename == r.Subject.Filename &&
				d.Subject.Start.Byte >= r.Subject.Start.Byte && d.Subject.End.Byte <= r.Subject.End.Byte {
				shadowed = true
				break
			}
		}
		if !shadowed {
			out = append(out, d)
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
