package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/fsbench/fsbench/internal/srcfile"
	"github.com/fsbench/fsbench/spec/diag"
)

// variable is a declared input of the spec.
type variable struct {
	Name        string
	Type        cty.Type
	Default     cty.Value // cty.NilVal = required
	Description string
	Validations []validation
	DeclRange   hcl.Range
}

type validation struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// decodeVariable reads a variable block. Defaults may not refer to
// anything: they are evaluated without a context.
func decodeVariable(b *hcl.Block) (*variable, hcl.Diagnostics) {
	v := &variable{Name: b.Labels[0], Type: cty.DynamicPseudoType, DeclRange: b.DefRange}
	c, diags := b.Body.Content(variableSchema)
	if !hclsyntax.ValidIdentifier(v.Name) {
		diags = append(diags, diag.Errorf(b.LabelRanges[0], "Invalid variable name",
			"A variable name must start with a letter or underscore and hold only letters, digits, underscores and dashes."))
	}
	if a, ok := c.Attributes["type"]; ok {
		ty, tdiags := typeexpr.TypeConstraint(a.Expr)
		diags = append(diags, tdiags...)
		if !tdiags.HasErrors() {
			v.Type = ty
		}
	}
	if a, ok := c.Attributes["description"]; ok {
		dv, ddiags := evalExpr(a.Expr, nil)
		diags = append(diags, ddiags...)
		if !ddiags.HasErrors() && dv.Type() == cty.String && !dv.IsNull() {
			v.Description = dv.AsString()
		}
	}
	if a, ok := c.Attributes["default"]; ok {
		dv, ddiags := evalExpr(a.Expr, nil)
		diags = append(diags, ddiags...)
		if ddiags.HasErrors() {
			// A default was written, though wrong (it names another
			// variable, say): the variable is not also "required".
			v.Default = cty.UnknownVal(v.Type)
		} else {
			cv, err := convert.Convert(dv, v.Type)
			if err != nil {
				diags = append(diags, diag.Errorf(a.Expr.Range(), "Invalid default value for variable",
					fmt.Sprintf("The default of %q does not fit its type: %s.", v.Name, err)))
				v.Default = cty.UnknownVal(v.Type) // written, though wrong: not "required"
			} else {
				v.Default = cv
			}
		}
	}
	for _, vb := range c.Blocks {
		vc, vdiags := vb.Body.Content(validationSchema)
		diags = append(diags, vdiags...)
		if vdiags.HasErrors() {
			continue
		}
		v.Validations = append(v.Validations, validation{
			Condition:    vc.Attributes["condition"].Expr,
			ErrorMessage: vc.Attributes["error_message"].Expr,
		})
	}
	return v, diags
}

// rawVar is a value given outside the spec, not yet converted.
type rawVar struct {
	Expr    hcl.Expression // from a var-file
	Name    hcl.Range      // where it is named: in a var-file, or the text itself
	Text    string         // from -var or the environment
	Source  string         // for messages: "-var n", "environment variable FSB_VAR_n", a file
	fromEnv bool
}

// textVar is a value given as text. Its diagnostics point into a pseudo
// file named after its origin ("-var n"), whose only line is the text, so
// that even a command-line mistake is shown with its position.
func textVar(origin, text, source string, sources map[string][]byte) rawVar {
	sources[origin] = []byte(text)
	n := len(text)
	return rawVar{Text: text, Source: source, Name: hcl.Range{Filename: origin,
		Start: hcl.Pos{Line: 1, Column: 1, Byte: 0},
		End:   hcl.Pos{Line: 1, Column: len([]rune(text)) + 1, Byte: n}}}
}

// assignVariables merges, in increasing priority, defaults, FSB_VAR_*
// environment values, var-files and -var flags, then converts and
// validates each value. Like Terraform, text values for non-string types
// are parsed as HCL expressions ("[1, 2]").
func assignVariables(decls map[string]*variable, given map[string]rawVar, functionsCtx *hcl.EvalContext, planning bool) (vals map[string]cty.Value, fromBuild, ignored []string, diags hcl.Diagnostics) {
	vals = map[string]cty.Value{}
	names := make([]string, 0, len(decls))
	for n := range decls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		decl := decls[name]
		raw, ok := given[name]
		if !ok {
			if decl.Default == cty.NilVal {
				// Planning, a value nobody gave is the build system's
				// to give (a path of its output): unknown until then.
				if planning {
					fromBuild = append(fromBuild, name)
				} else {
					diags = append(diags, diag.Errorf(decl.DeclRange, "No value for required variable",
						fmt.Sprintf("Variable %q has no default: give it with -var %s=VALUE, a -var-file, or FSB_VAR_%s.", name, name, name)))
				}
				vals[name] = cty.UnknownVal(decl.Type)
				continue
			}
			vals[name] = decl.Default
			continue
		}
		v, vdiags := raw.value(decl)
		diags = append(diags, vdiags...)
		vals[name] = v
	}
	for _, name := range sortedNames(given) {
		raw := given[name]
		if _, ok := decls[name]; ok {
			continue
		}
		if raw.fromEnv {
			// Like TF_VAR_*, an environment value for a variable the spec
			// does not declare is for another spec (the build systems
			// offer rootfs_tar and binaries to every spec): ignored, and
			// said in the build's log.
			ignored = append(ignored, name)
			continue
		}
		diags = append(diags, diag.Errorf(raw.Name, "Undeclared variable",
			fmt.Sprintf("%s sets %q, which the spec does not declare.%s To use it, declare it in the spec: variable %q { type = string }.",
				raw.Source, name, diag.DidYouMean(name, names), name)))
	}
	ctx := functionsCtx.NewChild()
	ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(vals)}
	for _, name := range names {
		diags = append(diags, checkValidations(decls[name], ctx)...)
	}
	return vals, fromBuild, ignored, diags
}

func (raw rawVar) value(decl *variable) (cty.Value, hcl.Diagnostics) {
	var v cty.Value
	var diags hcl.Diagnostics
	var subject *hcl.Range
	switch {
	case raw.Expr != nil:
		v, diags = evalExpr(raw.Expr, nil)
		subject = raw.Expr.Range().Ptr()
	case decl.Type == cty.String || decl.Type == cty.DynamicPseudoType:
		// Like Terraform: text for an untyped variable is a string.
		v = cty.StringVal(raw.Text)
		subject = raw.Name.Ptr()
		if err := checkSize(v); err != nil {
			return cty.UnknownVal(decl.Type), hcl.Diagnostics{diag.Errorf(raw.Name, "Invalid value for variable",
				fmt.Sprintf("%s gives %q a value too large for a spec: %v.", raw.Source, decl.Name, err))}
		}
	default:
		subject = raw.Name.Ptr()
		if d := srcfile.CheckNesting([]byte(raw.Text), raw.Name.Filename); d != nil {
			return cty.UnknownVal(decl.Type), hcl.Diagnostics{d}
		}
		if len(raw.Text) > MaxString {
			return cty.UnknownVal(decl.Type), hcl.Diagnostics{diag.Errorf(raw.Name, "Invalid value for variable",
				fmt.Sprintf("%s gives %q a value of %d bytes; a spec value holds %d KiB at most.", raw.Source, decl.Name, len(raw.Text), MaxString>>10))}
		}
		expr, pdiags := hclsyntax.ParseExpression([]byte(raw.Text), raw.Name.Filename, hcl.InitialPos)
		if !pdiags.HasErrors() {
			pdiags = append(pdiags, checkForNesting(&hclsyntax.Body{Attributes: hclsyntax.Attributes{"v": {Name: "v", Expr: expr}}})...)
		}
		if !pdiags.HasErrors() {
			v, pdiags = evalExpr(expr, nil)
		}
		if pdiags.HasErrors() {
			return cty.UnknownVal(decl.Type), hcl.Diagnostics{diag.Errorf(raw.Name, "Invalid value for variable",
				fmt.Sprintf("%s gives %q the value %q, which is not a %s literal.", raw.Source, decl.Name, raw.Text, typeexpr.TypeString(decl.Type)))}
		}
	}
	if diags.HasErrors() {
		return cty.UnknownVal(decl.Type), diags
	}
	cv, err := convert.Convert(v, decl.Type)
	if err != nil {
		return cty.UnknownVal(decl.Type), hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail:  fmt.Sprintf("%s gives %q a value that does not fit its type %s: %s.", raw.Source, decl.Name, typeexpr.TypeString(decl.Type), err),
			Subject: subject}}
	}
	return cv, nil
}

func checkValidations(decl *variable, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, val := range decl.Validations {
		ok, cdiags := evalExpr(val.Condition, ctx)
		diags = append(diags, cdiags...)
		if cdiags.HasErrors() || !ok.IsKnown() {
			continue
		}
		if ok.Type() != cty.Bool || ok.IsNull() {
			diags = append(diags, diag.Errorf(val.Condition.Range(), "Invalid validation condition", "The condition must be true or false."))
			continue
		}
		if ok.True() {
			continue
		}
		msg, mdiags := evalExpr(val.ErrorMessage, ctx)
		diags = append(diags, mdiags...)
		text := "The value is not valid."
		if !mdiags.HasErrors() && msg.Type() == cty.String && msg.IsKnown() && !msg.IsNull() {
			text = msg.AsString()
		}
		diags = append(diags, diag.Errorf(val.Condition.Range(), "Invalid value for variable",
			fmt.Sprintf("var.%s: %s", decl.Name, text)))
	}
	return diags
}

// ParseVarFlag splits a -var argument "name=value".
func ParseVarFlag(arg string) (name, value string, err error) {
	name, value, ok := strings.Cut(arg, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("-var %q: expected name=value", arg)
	}
	return name, value, nil
}

func sortedNames(m map[string]rawVar) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
