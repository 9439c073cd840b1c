package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/internal/srcfile"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func newFlagSet(env *Env, name, argsHelp, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: fsbench %s [flags] %s\n\n%s\n", name, argsHelp, help)
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintf(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags; done is true when the command must stop (help was
// asked for, or the flags were wrong). Flags may follow the positional
// arguments too (`fsbench plan spec.fsb.hcl -json`), as users type them.
func parse(fs *flag.FlagSet, args []string) (code int, done bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return ExitOK, true
			}
			return ExitUsage, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	_ = fs.Parse(append([]string{"--"}, positional...))
	return ExitOK, false
}

// specFlags are the flags of every command that loads a spec.
type specFlags struct {
	vars, varFiles, roots listFlag
}

func (sf *specFlags) register(fs *flag.FlagSet) {
	fs.Var(&sf.vars, "var", "set a variable: -var name=value (repeatable; overrides -var-file and FSB_VAR_name)")
	fs.Var(&sf.varFiles, "var-file", "read variable values from an HCL file of name = value lines (repeatable)")
	fs.Var(&sf.roots, "root", "allow contents to be read from this directory too (repeatable); the spec's own directory is always allowed")
}

func (sf *specFlags) options(env *Env) spec.Options {
	return spec.Options{Vars: sf.vars, VarFiles: sf.varFiles, Environ: env.Environ, Roots: sf.roots}
}

// planningOptions are the options of a command that plans a build before
// the build system has made its files (validate, plan, bootargs,
// buildvars, kconfig): inputs may be missing, and required variables
// without a value are the build's to give (spec.Options.Planning).
func (sf *specFlags) planningOptions(env *Env) spec.Options {
	o := sf.options(env)
	o.Planning = true
	return o
}

func didYouMean(given string, options []string) string { return diag.DidYouMean(given, options) }

// oneSpec checks the command line of a command that loads a spec: one
// spec file, readable, well-formed -var flags and readable var-files. A
// problem here is a usage (2) or file (4) error, not an invalid spec.
func oneSpec(env *Env, fs *flag.FlagSet, sf *specFlags) (string, int) {
	if fs.NArg() != 1 {
		fmt.Fprintf(env.Stderr, "fsbench %s: expected one spec file, got %d arguments\n", fs.Name(), fs.NArg())
		fs.Usage()
		return "", ExitUsage
	}
	return specArg(env, fs, sf, fs.Arg(0))
}

// specArg checks the -var flags and that the spec and var-files can be
// read, and returns the spec's path.
func specArg(env *Env, fs *flag.FlagSet, sf *specFlags, path string) (string, int) {
	for _, v := range sf.vars {
		if _, _, err := spec.ParseVarFlag(v); err != nil {
			fmt.Fprintf(env.Stderr, "fsbench %s: %s\n", fs.Name(), err)
			return "", ExitUsage
		}
	}
	for _, f := range append([]string{path}, sf.varFiles...) {
		if _, err := srcfile.Read(f); err != nil {
			fmt.Fprintf(env.Stderr, "fsbench %s: %s\n", fs.Name(), err)
			return "", ExitIO
		}
	}
	return path, ExitOK
}
