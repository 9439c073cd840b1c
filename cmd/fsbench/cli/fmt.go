package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/internal/srcfile"
	"github.com/fsbench/fsbench/spec/diag"
	"github.com/fsbench/fsbench/spec/hclfmt"
)

func runFmt(env *Env, args []string) int {
	fs := newFlagSet(env, "fmt", "[FILE|DIR|-]...",
		"Rewrite specs in canonical HCL style. With no argument, formats the *.hcl files of\nthe current directory; '-' reads stdin and writes stdout. A file that does not\nparse is left alone and its errors are reported.")
	check := fs.Bool("check", false, "change nothing; exit 3 if a file is not canonical, listing it")
	showDiff := fs.Bool("diff", false, "print a unified diff of the changes")
	recursive := fs.Bool("recursive", false, "also format the files of subdirectories")
	list := fs.Bool("list", true, "print the names of files whose formatting differs")
	if code, done := parse(fs, args); done {
		return code
	}
	paths := fs.Args()
	if len(paths) == 1 && paths[0] == "-" {
		return fmtStdin(env, *check, *showDiff)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := hclfmt.Files(paths, *recursive)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench fmt: %s\n", err)
		return ExitIO
	}
	code := ExitOK
	for _, f := range files {
		code = worse(code, fmtFile(env, f, *check, *showDiff, *list))
	}
	return code
}

// worse keeps the more serious of two fmt outcomes: a file that cannot be
// read, then one that does not parse, then one that would change.
func worse(a, b int) int {
	rank := map[int]int{ExitOK: 0, ExitChanged: 1, ExitInvalid: 2, ExitIO: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func fmtFile(env *Env, path string, check, showDiff, list bool) int {
	src, err := srcfile.Read(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench fmt: %s\n", err)
		return ExitIO
	}
	out, diags := hclfmt.Format(src, path)
	if diags.HasErrors() {
		_ = diag.WriteText(env.Stderr, diags, diag.Sources{path: src})
		return ExitInvalid
	}
	if bytes.Equal(src, out) {
		return ExitOK
	}
	if list {
		fmt.Fprintln(env.Stdout, path)
	}
	if showDiff {
		env.Stdout.Write(hclfmt.Diff(path, src, out))
	}
	if check {
		return ExitChanged
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm() // formatting keeps the file's permissions
	}
	if err := atomicfile.WriteFile(path, out, mode); err != nil {
		fmt.Fprintf(env.Stderr, "fsbench fmt: %s\n", err)
		return ExitIO
	}
	return ExitOK
}

func fmtStdin(env *Env, check, showDiff bool) int {
	src, err := srcfile.ReadFrom(env.Stdin, "stdin")
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench fmt: reading stdin: %s\n", err)
		return ExitIO
	}
	out, diags := hclfmt.Format(src, "<stdin>")
	if diags.HasErrors() {
		_ = diag.WriteText(env.Stderr, diags, diag.Sources{"<stdin>": src})
		return ExitInvalid
	}
	changed := !bytes.Equal(src, out)
	switch {
	case showDiff:
		env.Stdout.Write(hclfmt.Diff("<stdin>", src, out))
	case !check:
		env.Stdout.Write(out)
	}
	if check && changed {
		return ExitChanged
	}
	return ExitOK
}
