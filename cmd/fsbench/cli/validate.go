package cli

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

func runValidate(env *Env, args []string) int {
	fs := newFlagSet(env, "validate", "SPEC",
		"Check a spec: syntax, types, names, partition layout, and the limits of each mkfs\ntool, for every matrix variant. All problems are reported at once, sorted, each\nwith file:line:column and the source line.")
	var sf specFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "write the diagnostics as JSON ("+diag.JSONFormat+") on stdout")
	if code, done := parse(fs, args); done {
		return code
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	s, p, diags := plan.Load(path, sf.options(env))
	if *asJSON {
		if err := diag.WriteJSON(env.Stdout, diags); err != nil {
			return ExitIO
		}
		return exitFor(diags)
	}
	writeDiags(env, s, diags)
	if diags.HasErrors() {
		return ExitInvalid
	}
	fmt.Fprintf(env.Stdout, "%s is valid: %d variant%s.\n", path, len(p.Variants), plural(len(p.Variants)))
	return ExitOK
}

func writeDiags(env *Env, s *spec.Spec, diags hcl.Diagnostics) {
	var src diag.Sources
	if s != nil {
		src = s.Sources
	}
	_ = diag.WriteText(env.Stderr, diags, src)
	if n := errorCount(diags); n > 0 {
		fmt.Fprintf(env.Stderr, "%d error%s.\n", n, plural(n))
	}
}

func errorCount(diags hcl.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

func exitFor(diags hcl.Diagnostics) int {
	if diags.HasErrors() {
		return ExitInvalid
	}
	return ExitOK
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
