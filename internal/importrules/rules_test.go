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

	"github.com/fsbench/fsbench/internal/testenv"
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
	testenv.Tool(t, "go")
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

// stages are the host's folders in the order of the data flow, each
// with its level: a package may import packages of its own level or
// below, never above. wire/ and internal/ are the floor; the catalogues
// (filesystems, recipes), the flash model and the QEMU engine are shared
// by several stages and stand below them all; cmd/ is the roof.
var stages = map[string]int{
	"wire":        0,
	"internal":    1,
	"filesystems": 2, "recipes": 2, "ftl": 2, "qemu": 2,
	"spec": 3, "importer": 3, // importer writes specs from other tools' layouts
	"plan":     4,
	"imagegen": 5, "buildsys": 5,
	"driver": 6, "capture": 6,
	"report": 7,
	"cmd":    8,
}

// stage returns the top folder of a module package and its level; ok is
// false for target/ and for folders the table does not know.
func stage(path string) (dir string, level int, ok bool) {
	rest, found := strings.CutPrefix(path, module+"/")
	if !found {
		return "", 0, false
	}
	dir, _, _ = strings.Cut(rest, "/")
	level, ok = stages[dir]
	return dir, level, ok
}

// hostViolations lists, for the host package path and its direct module
// imports, the imports that break the host rules: one of target/, or one
// of a later stage.
func hostViolations(path string, imports []string) []string {
	_, level, _ := stage(path)
	var bad []string
	for _, imp := range imports {
		if under(imp, "target") {
			bad = append(bad, imp+" (a target package: share it through wire/)")
			continue
		}
		if dir, l, ok := stage(imp); ok && l > level {
			bad = append(bad, fmt.Sprintf("%s (%s is a later stage of the data flow)", imp, dir))
		}
	}
	return bad
}

// hostPackage is what `go list -json` says of a package's own imports.
type hostPackage struct {
	ImportPath string
	Imports    []string
}

func TestHostStagesImportOnlyDownward(t *testing.T) {
	testenv.Tool(t, "go")
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for dec.More() {
		var p hostPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		dir, _, known := stage(p.ImportPath)
		switch {
		case under(p.ImportPath, "target"), p.ImportPath == module+"/cmd/fsbench-runner":
			continue
		case !known:
			t.Errorf("%s: the folder %s has no place in the stages of this test; add it", p.ImportPath, dir)
			continue
		}
		n++
		if bad := hostViolations(p.ImportPath, p.Imports); len(bad) > 0 {
			t.Errorf("%s imports %s", p.ImportPath, strings.Join(bad, ", "))
		}
	}
	if n < 40 {
		t.Errorf("only %d host packages listed", n)
	}
}

// The host rules refuse a host package that imports target/, and every
// import up the data flow; they accept imports down it and sideways.
func TestHostRulesRefuseUpwardImports(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	cases := []struct {
		pkg     string
		imports []string
		bad     int
	}{
		{"imagegen", []string{"os", m("plan"), m("spec"), m("qemu"), m("filesystems"), m("wire/arch"), m("imagegen/bmap")}, 0},
		{"driver/crashstate", []string{m("target/bootinit")}, 1},
		{"imagegen", []string{m("driver/qemu"), m("capture"), m("target/populate")}, 3},
		{"internal/gitrev", []string{m("spec/srcfile")}, 1},
		{"filesystems", []string{m("spec/fields"), m("internal/units")}, 1},
		{"wire/runplan", []string{m("filesystems")}, 1},
		{"spec", []string{m("plan")}, 1},
		{"driver", []string{m("capture"), m("imagegen")}, 0},
		{"report", []string{m("driver"), m("cmd/fsbench/cli")}, 1},
		{"cmd/fsbench/cli", []string{m("report"), m("driver/lava")}, 0},
	}
	for _, c := range cases {
		if got := hostViolations(m(c.pkg), c.imports); len(got) != c.bad {
			t.Errorf("%s importing %v: %d violations %q, want %d", c.pkg, c.imports, len(got), got, c.bad)
		}
	}
	if _, _, ok := stage(m("newfolder/x")); ok {
		t.Error("an unknown folder has a stage")
	}
}

func sortedPaths(m map[string]pkg) []string {
	return slices.Sorted(maps.Keys(m))
}
