package codeshape

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	maxFuncLines    = 100
	maxPackageLines = 4000
)

// codeLines counts the lines of a function that are not inside a data
// literal: a composite literal of several lines counts as one.
func codeLines(fset *token.FileSet, fn *ast.FuncDecl) int {
	first, last := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
	inLiteral := map[int]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		a, b := fset.Position(lit.Lbrace).Line, fset.Position(lit.Rbrace).Line
		for l := a + 1; l <= b; l++ {
			inLiteral[l] = true
		}
		return false
	})
	n := 0
	for l := first; l <= last; l++ {
		if !inLiteral[l] {
			n++
		}
	}
	return n
}

// longFunctions lists the functions of src (one file) over the limit.
func longFunctions(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		if n := codeLines(fset, fn); n > maxFuncLines {
			out = append(out, fmt.Sprintf("%s: %s has %d lines of code", fset.Position(fn.Pos()), fn.Name.Name, n))
		}
	}
	return out
}

// codeSize counts the lines of src that are neither blank nor comments
// only.
func codeSize(src string) int {
	n := 0
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "//") {
			n++
		}
	}
	return n
}

// pkg is one package directory's code.
type pkg struct {
	lines  int
	doc    string
	issues []string
}

// walk reads every non-test Go file of the module under root.
func walk(t *testing.T, root string) map[string]*pkg {
	t.Helper()
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		if pkgs[dir] == nil {
			pkgs[dir] = &pkg{}
		}
		pk := pkgs[dir]
		pk.lines += codeSize(string(src))
		if f.Doc != nil {
			pk.doc += f.Doc.Text()
		}
		pk.issues = append(pk.issues, longFunctions(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestCodeShape(t *testing.T) {
	pkgs := walk(t, "../..")
	if len(pkgs) < 50 {
		t.Fatalf("only %d packages found", len(pkgs))
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		pk := pkgs[d]
		for _, issue := range pk.issues {
			t.Errorf("%s (at most %d outside data literals: split it)", issue, maxFuncLines)
		}
		if pk.lines > maxPackageLines && !strings.Contains(pk.doc, "Size:") {
			t.Errorf("%s has %d lines of code, more than %d: split it, or say why in a \"Size:\" paragraph of its doc comment", d, pk.lines, maxPackageLines)
		}
	}
}

// The checks have teeth: a long function fails, a long data literal does
// not, and lines are counted without comments and blank lines.
func TestCodeShapeRules(t *testing.T) {
	var long, data strings.Builder
	long.WriteString("package x\n\nfunc long() {\n")
	data.WriteString("package x\n\nfunc data() []int {\n\treturn []int{\n")
	for i := range 120 {
		fmt.Fprintf(&long, "\t_ = %d\n", i)
		fmt.Fprintf(&data, "\t\t%d,\n", i)
	}
	long.WriteString("}\n")
	data.WriteString("\t}\n}\n")
	fset := token.NewFileSet()
	for src, want := range map[string]int{long.String(): 1, data.String(): 0} {
		f, err := parser.ParseFile(fset, "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := longFunctions(fset, f); len(got) != want {
			t.Errorf("%d long functions, want %d: %v", len(got), want, got)
		}
	}
	if n := codeSize("package x\n\n// a comment\n\tx := 1 // trailing\n\n"); n != 2 {
		t.Errorf("codeSize = %d, want 2", n)
	}
}
