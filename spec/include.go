package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/srcfile"
)

// MaxIncludeDepth bounds how deeply included files may include others.
const MaxIncludeDepth = 8

// includes merges the files a spec names in its top-level `include`
// attribute into its body, as if their blocks were written there: a board
// family's raw regions, partitions as locals for dynamic blocks, a shared
// board block. Paths are literal strings, relative to the including
// file, and lie inside the spec's directory or a -root directory, like
// every other input. An included file may include others; a file is
// included once.
func (s *Spec) includes(body *hclsyntax.Body, from string, paths *resolver, depth int, seen map[string]bool) hcl.Diagnostics {
	a, ok := body.Attributes["include"]
	if !ok {
		return nil
	}
	delete(body.Attributes, "include")
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || !(v.Type().IsTupleType() || v.Type().IsListType()) || !v.IsWhollyKnown() {
		return hcl.Diagnostics{&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid include",
			Detail:  "include is a list of file paths written as strings, such as [\"layouts/sunxi-sd.fsb.hcl\"]: it is read before variables have values.",
			Subject: a.Expr.Range().Ptr()}}
	}
	elems := elemRanges(a)
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		rng := a.Expr.Range()
		if i < len(elems) {
			rng = elems[i]
		}
		errorf := func(summary, format string, args ...any) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
		}
		if e.IsNull() || e.Type() != cty.String {
			errorf("Invalid include", "Each element of include is a path written as a string.")
			continue
		}
		written := e.AsString()
		name := written
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(from), name)
		}
		// name is relative to the working directory, where the paths
		// resolver takes relative paths from the spec's directory.
		abs, err := filepath.Abs(name)
		real := ""
		if err == nil {
			real, err = paths.source(abs, "file")
		}
		if err != nil {
			errorf("Invalid include", "%s.", strings.ReplaceAll(err.Error(), abs, name))
			continue
		}
		switch {
		case seen[real]:
			errorf("File included twice", "%s is already part of the spec (the spec itself, or included elsewhere); a file is included once.", written)
			continue
		case depth >= MaxIncludeDepth:
			errorf("Includes nested too deeply", "%s would be included %d levels deep; fsbench allows %d.", written, depth+1, MaxIncludeDepth)
			continue
		}
		seen[real] = true
		src, err := srcfile.Read(real)
		if err != nil {
			errorf("Cannot read included file", "%s.", err)
			continue
		}
		s.Sources[name] = src
		s.Included = append(s.Included, name)
		inc, pdiags := parseSource(src, name)
		diags = append(diags, pdiags...)
		if pdiags.HasErrors() {
			continue
		}
		diags = append(diags, s.includes(inc, name, paths, depth+1, seen)...)
		for an, attr := range inc.Attributes {
			if prev, dup := body.Attributes[an]; dup {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate argument",
					Detail:  fmt.Sprintf("%s is also set at %s.", an, describeRange(prev.NameRange)),
					Subject: attr.NameRange.Ptr()})
				continue
			}
			body.Attributes[an] = attr
		}
		body.Blocks = append(body.Blocks, inc.Blocks...)
	}
	return diags
}

func elemRanges(a *hclsyntax.Attribute) []hcl.Range {
	var out []hcl.Range
	if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
		for _, e := range t.Exprs {
			out = append(out, e.Range())
		}
	}
	return slices.Clip(out)
}
