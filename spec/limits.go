package spec

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/fsbench/fsbench/spec/diag"
)

// Evaluation limits. A spec describes a few images and tests: its values
// are short strings and small lists. The limits are far above what a spec
// needs and far below what exhausts a build machine, so that a hostile or
// mistaken spec (setproduct of three 1000-element ranges, a replace that
// doubles a string per local) ends with a located error instead of
// running out of memory.
const (
	// MaxElements bounds the elements of one value, nested ones counted.
	MaxElements = 1024
	// MaxString bounds one string, and the strings of one value together.
	MaxString = 64 << 10
	// MaxForNesting bounds for-expressions within one another.
	MaxForNesting = 2
	// MaxDeclarations bounds variables and locals each.
	MaxDeclarations = 1024
)

// errTooLarge is a value over the limits.
type errTooLarge struct{ what string }

func (e errTooLarge) Error() string { return e.what }

// checkSize reports a value over the limits, or nil. It stops counting at
// the limit, so a value built of shared parts costs no more to check than
// the limit itself.
func checkSize(v cty.Value) error {
	elems, bytes := 0, 0
	var walk func(v cty.Value) error
	walk = func(v cty.Value) error {
		if v.IsNull() || !v.IsKnown() {
			return nil
		}
		v, _ = v.Unmark()
		ty := v.Type()
		switch {
		case ty == cty.String:
			bytes += len(v.AsString())
			if bytes > MaxString {
				return errTooLarge{fmt.Sprintf("its strings hold more than %d KiB", MaxString>>10)}
			}
		case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
			n := v.LengthInt()
			elems += n
			if elems > MaxElements {
				return errTooLarge{fmt.Sprintf("it holds more than %d elements", MaxElements)}
			}
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				if ty.IsMapType() || ty.IsObjectType() {
					if err := walk(k); err != nil {
						return err
					}
				}
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v)
}

// evalExpr evaluates expr in ctx and refuses a result over the limits, at
// the expression.
func evalExpr(expr hcl.Expression, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return v, diags
	}
	if err := checkSize(v); err != nil {
		return cty.DynamicVal, append(diags, diag.Errorf(expr.Range(), "Value too large",
			fmt.Sprintf("This expression's value is too large for a spec: %v.", err)))
	}
	return v, diags
}

// checkForNesting reports for-expressions nested deeper than
// MaxForNesting: each level multiplies what the expression builds.
func checkForNesting(body *hclsyntax.Body) hcl.Diagnostics {
	w := &forWalker{}
	hclsyntax.Walk(body, w)
	return w.diags
}

type forWalker struct {
	depth int
	diags hcl.Diagnostics
}

func (w *forWalker) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if f, ok := n.(*hclsyntax.ForExpr); ok {
		w.depth++
		if w.depth == MaxForNesting+1 {
			w.diags = append(w.diags, diag.Errorf(f.Range(), "For expressions nested too deep",
				fmt.Sprintf("For expressions nest at most %d deep in a spec; use a matrix, or build the inner lists in locals.", MaxForNesting)))
		}
	}
	return nil
}

func (w *forWalker) Exit(n hclsyntax.Node) hcl.Diagnostics {
	if _, ok := n.(*hclsyntax.ForExpr); ok {
		w.depth--
	}
	return nil
}

// bounded wraps a library function so that it refuses, before it runs,
// arguments whose result would be over the limits (where that can be told
// from them), and refuses a result over the limits after.
//
// The checks run before anything walks the arguments: the wrapper's
// parameters take marked values (a spec has none), so that the call does
// not first walk every nested element, and the library's own type
// function (flatten's flattens) only sees arguments that passed.
func bounded(name string, f function.Function) function.Function {
	params := f.Params()
	for i := range params {
		params[i].AllowMarked = true
	}
	varParam := f.VarParam()
	if varParam != nil {
		varParam.AllowMarked = true
	}
	check := func(args []cty.Value) error {
		if err := precheck(name, args); err != nil {
			return err
		}
		if err := checkSize(cty.TupleVal(args)); err != nil {
			return fmt.Errorf("the arguments of %s are too large for a spec: %v", name, err)
		}
		return nil
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      params,
		VarParam:    varParam,
		Type: func(args []cty.Value) (cty.Type, error) {
			if err := check(args); err != nil {
				return cty.NilType, err
			}
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			if err := checkSize(v); err != nil {
				return cty.NilVal, fmt.Errorf("the result of %s is too large for a spec: %v", name, err)
			}
			return v, nil
		},
	})
}

// formatWidth finds the widths and precisions of a format string's verbs.
var formatWidth = regexp.MustCompile(`%[-+# 0]*([0-9]+)?(\.[0-9]+)?`)

// precheck refuses the arguments of the functions that can build much
// from little: products, ranges, replacements, joins and padded formats.
func precheck(name string, args []cty.Value) error {
	known := func(v cty.Value) bool { return v.IsKnown() && !v.IsNull() }
	tooMany := func(n *big.Float) error {
		if n.Cmp(big.NewFloat(MaxElements)) > 0 {
			return fmt.Errorf("%s would make %s elements, more than the %d a spec value may hold", name, n.Text('g', 4), MaxElements)
		}
		return nil
	}
	switch name {
	case "setproduct":
		n := big.NewFloat(1)
		for _, a := range args {
			if known(a) && a.CanIterateElements() {
				n.Mul(n, big.NewFloat(float64(a.LengthInt())))
			}
		}
		return tooMany(n)
	case "range":
		var nums []*big.Float
		for _, a := range args {
			if known(a) && a.Type() == cty.Number {
				nums = append(nums, a.AsBigFloat())
			}
		}
		start, limit, step := big.NewFloat(0), big.NewFloat(0), big.NewFloat(1)
		switch len(nums) {
		case 1:
			limit = nums[0]
		case 2:
			start, limit = nums[0], nums[1]
		case 3:
			start, limit, step = nums[0], nums[1], nums[2]
		}
		if step.Sign() == 0 {
			return nil // the function itself refuses it
		}
		n := new(big.Float).Sub(limit, start)
		n.Quo(n, step).Abs(n)
		return tooMany(n)
	case "replace":
		if len(args) != 3 || !known(args[0]) || !known(args[1]) || !known(args[2]) {
			return nil
		}
		s, old, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
		matches := 0
		if len(old) > 2 && strings.HasPrefix(old, "/") && strings.HasSuffix(old, "/") {
			re, err := regexp.Compile(old[1 : len(old)-1])
			if err != nil {
				return nil // the function reports it
			}
			matches = len(re.FindAllStringIndex(s, -1))
		} else if old == "" {
			matches = utf8.RuneCountInString(s) + 1
		} else {
			matches = strings.Count(s, old)
		}
		if len(s)+matches*len(repl) > MaxString {
			return fmt.Errorf("replace would make a string of more than %d KiB", MaxString>>10)
		}
	case "join":
		total := 0
		for _, a := range args[1:] {
			if !known(a) || !a.CanIterateElements() {
				continue
			}
			for it := a.ElementIterator(); it.Next(); {
				_, e := it.Element()
				if known(e) && e.Type() == cty.String {
					total += len(e.AsString())
				}
				if known(args[0]) && args[0].Type() == cty.String {
					total += len(args[0].AsString())
				}
				if total > MaxString {
					return fmt.Errorf("join would make a string of more than %d KiB", MaxString>>10)
				}
			}
		}
	case "format", "formatlist":
		if len(args) > 0 && known(args[0]) && args[0].Type() == cty.String {
			for _, m := range formatWidth.FindAllStringSubmatch(args[0].AsString(), -1) {
				for _, w := range []string{m[1], strings.TrimPrefix(m[2], ".")} {
					if len(w) > 5 || (w != "" && mustAtoi(w) > 4096) {
						return fmt.Errorf("%s pads to %s characters; a spec pads to 4096 at most", name, w)
					}
				}
			}
		}
	}
	return nil
}

func mustAtoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
