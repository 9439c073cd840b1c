package cli

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

func runValidate(env *Env, args []string) int {
	fs := newFlagSet(env, "validate", "SPEC...",
		"Check a spec: syntax, types, names, partition layout, and the limits of each mkfs\ntool, for every matrix variant. All problems are reported at once, sorted, each\nwith file:line:column and the source line.")
	var sf specFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "write the diagnostics as JSON ("+diag.JSONFormat+") on stdout; the same as -format json")
	format := fs.String("format", "text", "how to write the diagnostics: text (on stderr), json ("+diag.JSONFormat+"), github (workflow commands that annotate the lines) or gitlab (a code quality report), the last three on stdout")
	if code, done := parse(fs, args); done {
		return code
	}
	if *asJSON {
		*format = "json"
	}
	writers := map[string]func(io.Writer, hcl.Diagnostics) error{
		"json": diag.WriteJSON, "github": diag.WriteGitHub, "gitlab": diag.WriteGitLab,
	}
	if _, ok := writers[*format]; !ok && *format != "text" {
		fmt.Fprintf(env.Stderr, "fsbench validate: -format %q: use text, json, github or gitlab\n", *format)
		return ExitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(env.Stderr, "fsbench validate: expected one spec file or more\n")
		fs.Usage()
		return ExitUsage
	}
	// Several specs (a pre-commit hook passes every staged one) are
	// checked one by one; the structured formats hold all their
	// diagnostics in one document.
	code, all := ExitOK, hcl.Diagnostics{}
	for _, arg := range fs.Args() {
		path, c := specArg(env, fs, &sf, arg)
		if c != ExitOK {
			code = max(code, c)
			continue
		}
		s, p, diags := plan.Load(path, sf.planningOptions(env))
		all = append(all, diags...)
		if _, structured := writers[*format]; structured {
			continue
		}
		writeDiags(env, s, diags)
		if diags.HasErrors() {
			code = max(code, ExitInvalid)
			continue
		}
		fmt.Fprintf(env.Stdout, "%s is valid: %d variant%s.\n", path, len(p.Variants), plural(len(p.Variants)))
		if lines := s.PendingLines(); len(lines) > 0 {
			fmt.Fprintf(env.Stdout, "Only a build needs these, which do not exist yet:\n")
			for _, l := range lines {
				fmt.Fprintf(env.Stdout, "  %s\n", l)
			}
		}
	}
	if write, ok := writers[*format]; ok {
		if err := write(env.Stdout, all); err != nil {
			return ExitIO
		}
		code = max(code, exitFor(all))
	}
	return code
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
