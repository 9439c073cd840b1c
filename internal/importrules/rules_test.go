package importrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/fsbench/fsbench"

// pkg is what `go list -deps -json` says of a package.
type pkg struct {
	ImportPath string
	Standard   bool
	Deps       []string
}

// list returns the packages patterns name and everything they depend on.
func list(t *testing.T, patterns ...string) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	args := append([]string{"list", "-deps", "-json=ImportPath,Standard,Deps"}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func under(path, dir string) bool {
	return path == module+"/"+dir || strings.HasPrefix(path, module+"/"+dir+"/")
}

// targetViolations lists the packages of deps that the target binary must
// not link, with the reason.
func targetViolations(root string, deps map[string]pkg) []string {
	var bad []string
	for _, path := range sortedPaths(deps) {
		p := deps[path]
		switch {
		case p.Standard, path == root, path == "golang.org/x/sys" || strings.HasPrefix(path, "golang.org/x/sys/"),
			under(path, "target"), under(path, "wire"):
		case under(path, "internal") && leaf(deps, p):
		case under(path, "internal"):
			bad = append(bad, path+" (an internal package that links more than the standard library)")
		default:
			bad = append(bad, path)
		}
	}
	return bad
}

// leaf reports whether p links the standard library only.
func leaf(all map[string]pkg, p pkg) bool {
	for _, d := range p.Deps {
		if dp, ok := all[d]; !ok || !dp.Standard {
			return false
		}
	}
	return true
}

// wireViolations lists the imports of the wire packages that are neither
// the standard library nor wire.
func wireViolations(deps map[string]pkg) []string {
	var bad []string
	for _, path := range sortedPaths(deps) {
		if p := deps[path]; !p.Standard && !under(path, "wire") {
			bad = append(bad, path)
		}
	}
	return bad
}

func TestTargetBinaryLinksOnlyTargetAndWire(t *testing.T) {
	root := module + "/cmd/fsbench-runner"
	if bad := targetViolations(root, list(t, root)); len(bad) > 0 {
		t.Errorf("the runner links packages that are neither the standard library, golang.org/x/sys, target/, wire/ nor an internal leaf:\n  %s\n"+
			"move what the board needs under target/ or wire/", strings.Join(bad, "\n  "))
	}
}

func TestTargetPackagesImportNoHostPackage(t *testing.T) {
	pkgs := list(t, module+"/target/...")
	for _, path := range sortedPaths(pkgs) {
		if !under(path, "target") {
			continue
		}
		sub := map[string]pkg{path: pkgs[path]}
		for _, d := range pkgs[path].Deps {
			sub[d] = pkgs[d]
		}
		if bad := targetViolations(path, sub); len(bad) > 0 {
			t.Errorf("%s depends on %s", path, strings.Join(bad, ", "))
		}
	}
}

func TestWireImportsNoHostPackage(t *testing.T) {
	if bad := wireViolations(list(t, module+"/wire/...")); len(bad) > 0 {
		t.Errorf("the wire packages import %s; the contracts both sides share must import only the standard library and each other",
			strings.Join(bad, ", "))
	}
}

// The rules themselves: a runner that links the plan, or an internal
// package that links logrus, is refused; wire importing a host package
// is refused.
func TestRulesRefuseHostImports(t *testing.T) {
	std := func(path string) pkg { return pkg{ImportPath: path, Standard: true} }
	root := module + "/cmd/fsbench-runner"
	deps := map[string]pkg{
		root:                               {ImportPath: root},
		"os":                               std("os"),
		module + "/target/runner":          {ImportPath: module + "/target/runner", Deps: []string{"os"}},
		module + "/internal/atomicfile":    {ImportPath: module + "/internal/atomicfile", Deps: []string{"os"}},
		"golang.org/x/sys/unix":            {ImportPath: "golang.org/x/sys/unix"},
		module + "/plan":                   {ImportPath: module + "/plan"},
		module + "/internal/debpkg":        {ImportPath: module + "/internal/debpkg", Deps: []string{"github.com/sirupsen/logrus"}},
		"github.com/sirupsen/logrus":       {ImportPath: "github.com/sirupsen/logrus"},
		"github.com/hashicorp/hcl/v2":      {ImportPath: "github.com/hashicorp/hcl/v2"},
		module + "/wire/runplan":           {ImportPath: module + "/wire/runplan", Deps: []string{"os"}},
		module + "/target/bootinit/subdir": {ImportPath: module + "/target/bootinit/subdir"},
	}
	got := fmt.Sprint(targetViolations(root, deps))
	want := fmt.Sprint([]string{module + "/internal/debpkg (an internal package that links more than the standard library)",
		module + "/plan", "github.com/hashicorp/hcl/v2", "github.com/sirupsen/logrus"})
	if got != want {
		t.Errorf("target violations:\n got %s\nwant %s", got, want)
	}
	wire := map[string]pkg{"os": std("os"), module + "/wire/arch": {ImportPath: module + "/wire/arch"},
		module + "/spec": {ImportPath: module + "/spec"}}
	if got := wireViolations(wire); fmt.Sprint(got) != fmt.Sprint([]string{module + "/spec"}) {
		t.Errorf("wire violations: %v", got)
	}
}

func sortedPaths(m map[string]pkg) []string {
	return slices.Sorted(maps.Keys(m))
}
