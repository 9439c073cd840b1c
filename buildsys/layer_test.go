package buildsys

// Checks of meta-fsbench that need no Yocto tree, so that CI runs them:
// the layer's configuration, its Go expectations against go.mod, its Go
// module list against go.sum, and its kernel fragment against what
// `fsbench kconfig` says. The real bitbake and yocto-check-layer run
// against it is described in docs/yocto.md.

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/digest"
)

var update = flag.Bool("update", false, "rewrite the generated kernel fragments of meta-fsbench and buildroot-pkg")

const (
	layerDir    = "../meta-fsbench"
	gomodInc    = layerDir + "/recipes-devtools/fsbench/fsbench-go-mods.inc"
	layerSpec   = layerDir + "/recipes-core/images/files/fsbench-qemu.fsb.hcl"
	layerKernel = layerDir + "/recipes-kernel/linux/files/fsbench.cfg"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// confValue returns the value of `NAME = "value"` (or ?=, +=) in a
// bitbake file, "" when absent.
func confValue(text, name string) string {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*(\?\?=|\?=|\+=|=)\s*"([^"]*)"`)
	if m := re.FindStringSubmatch(text); m != nil {
		return m[2]
	}
	return ""
}

func TestLayerConf(t *testing.T) {
	conf := readFile(t, layerDir+"/conf/layer.conf")
	if got := confValue(conf, "BBFILE_COLLECTIONS"); got != "fsbench" {
		t.Fatalf("BBFILE_COLLECTIONS += %q, want fsbench", got)
	}
	for _, v := range []string{"BBFILE_PATTERN_fsbench", "BBFILE_PRIORITY_fsbench", "LAYERVERSION_fsbench"} {
		if confValue(conf, v) == "" {
			t.Errorf("layer.conf sets no %s", v)
		}
	}
	if deps := strings.Fields(confValue(conf, "LAYERDEPENDS_fsbench")); !slices.Contains(deps, "core") {
		t.Errorf("LAYERDEPENDS_fsbench = %q, want core in it", deps)
	}
	// LAYERSERIES_COMPAT is exactly the Yocto releases fsbench supports.
	compat := strings.Fields(confValue(conf, "LAYERSERIES_COMPAT_fsbench"))
	var want []string
	for _, r := range Releases {
		if r.System == "yocto" {
			want = append(want, r.Name)
		}
	}
	if !slices.Equal(compat, want) {
		t.Errorf("LAYERSERIES_COMPAT_fsbench = %q, want %q (buildsys.Releases)", compat, want)
	}
	for _, must := range []string{"wrynose", "whinlatter"} {
		if !slices.Contains(compat, must) {
			t.Errorf("LAYERSERIES_COMPAT_fsbench lacks %s", must)
		}
	}

	readme := strings.ToLower(readFile(t, layerDir+"/README.md"))
	for _, w := range []string{"maintainer", "patch", "@"} {
		if !strings.Contains(readme, w) {
			t.Errorf("README.md lacks %q, which yocto-check-layer requires", w)
		}
	}
	if strings.TrimSpace(readFile(t, layerDir+"/SECURITY.md")) == "" {
		t.Error("SECURITY.md is empty")
	}
}

// Only do_fetch may use the network: no other task may ask for it.
func TestLayerTasksStayOffline(t *testing.T) {
	network := regexp.MustCompile(`(?m)^\s*(do_\w+)\[network\]\s*=\s*"1"`)
	err := filepath.WalkDir(layerDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".bb", ".bbappend", ".bbclass", ".inc":
		default:
			return nil
		}
		for _, m := range network.FindAllStringSubmatch(readFile(t, path), -1) {
			if m[1] != "do_fetch" {
				t.Errorf("%s: %s asks for the network", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	inc := readFile(t, layerDir+"/recipes-devtools/fsbench/fsbench.inc")
	if got := confValue(inc, "GOPROXY"); got != "off" {
		t.Errorf("fsbench.inc: GOPROXY = %q, want off", got)
	}
	if rev := confValue(inc, "FSBENCH_SRCREV"); !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(rev) {
		t.Errorf("fsbench.inc: FSBENCH_SRCREV = %q, want a pinned commit", rev)
	}
	if !strings.Contains(inc, "require fsbench-go-mods.inc") {
		t.Error("fsbench.inc does not require fsbench-go-mods.inc")
	}
}

// goVersion parses "1.25.0" (or "1.25") into comparable numbers.
func goVersion(t *testing.T, v string) [3]int {
	t.Helper()
	var out [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("Go version %q: %v", v, err)
		}
		out[i] = n
	}
	return out
}

func lessVersion(a, b [3]int) bool { return slices.Compare(a[:], b[:]) < 0 }

// The go line of go.mod may not ask for more than the oldest supported
// release's Go: those builds use their own toolchain, offline.
func TestGoLineWithinSupportedToolchains(t *testing.T) {
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(readFile(t, "../go.mod"))
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	goLine := goVersion(t, m[1])
	if tc := regexp.MustCompile(`(?m)^toolchain `).FindString(readFile(t, "../go.mod")); tc != "" {
		t.Error("go.mod names a toolchain: the build systems run GOTOOLCHAIN=local")
	}
	for _, r := range Releases {
		if lessVersion(goVersion(t, r.Go), goLine) {
			t.Errorf("go.mod says go %s, but %s %s has Go %s", m[1], r.System, r.Name, r.Go)
		}
	}
}

// The committed gomod:// list names exactly the module versions of
// go.sum, zips where go.sum has their hash; and where the module cache
// holds a file, its digest is the one listed.
func TestGomodIncMatchesGoSum(t *testing.T) {
	f, err := os.Open("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mods, err := ReadGoSum(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(gomodInc)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	uris, err := ReadGomodInc(g)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[GoModule]GomodURI{}
	for _, u := range uris {
		listed[GoModule{Path: u.Path, Version: u.Version, Zip: !u.Mod}] = u
	}
	for _, m := range mods {
		if _, ok := listed[m]; !ok {
			t.Errorf("%s@%s (zip %v) of go.sum is not in %s: run scripts/gen-yocto-gomod.sh", m.Path, m.Version, m.Zip, gomodInc)
		}
		delete(listed, m)
	}
	for m := range listed {
		t.Errorf("%s lists %s@%s, which go.sum does not have: run scripts/gen-yocto-gomod.sh", gomodInc, m.Path, m.Version)
	}

	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	checked := 0
	for _, u := range uris {
		ext := ".zip"
		if u.Mod {
			ext = ".mod"
		}
		sum, err := digest.File(CacheFile(cache, u.Path, u.Version, ext))
		if os.IsNotExist(err) {
			continue // not downloaded here; do_fetch checks it
		}
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if sum != u.SHA256 {
			t.Errorf("%s@%s: the module cache's file has sha256 %s, the list says %s", u.Path, u.Version, sum, u.SHA256)
		}
	}
	t.Logf("%d of %d digests checked against %s", checked, len(uris), cache)
}

// The kernel fragments in the trees are what `fsbench kconfig` prints for
// their specs; -update rewrites them.
func TestKernelFragmentsAreGenerated(t *testing.T) {
	for _, c := range []struct {
		spec, file string
		vars       []string
	}{
		{layerSpec, layerKernel, nil},
		{brSpec, brDir + "/board/fsbench/qemu/linux-x86_64.fragment", []string{"arch=x86_64"}},
		{brSpec, brDir + "/board/fsbench/qemu/linux-aarch64.fragment", []string{"arch=arm64"}},
		{brUBootSpec, brDir + "/board/fsbench/qemu/linux-aarch64-uboot.fragment", nil},
	} {
		want := KernelConfig(loadPlanFile(t, c.spec, c.vars...)).String()
		if *update {
			if err := os.WriteFile(c.file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := readFile(t, c.file); got != want {
			t.Errorf("%s is not fsbench kconfig of %s %v (go test ./buildsys -update rewrites it):\n%s", c.file, c.spec, c.vars, want)
		}
	}
}

// The build systems stamp the version into a package variable with -X;
// a package that moved would leave the binaries without it, silently.
// Every -X of the layer, the BR2_EXTERNAL tree and the install script names
// a package of this module that declares the variable, and every package
// they build exists.
func TestBuildSystemsNameRealPackages(t *testing.T) {
	const module = "github.com/fsbench/fsbench"
	files := []string{"../scripts/install.sh"}
	for _, root := range []string{layerDir, brDir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && regexp.MustCompile(`\.(bb|inc|mk)$`).MatchString(p) {
				files = append(files, p)
			}
			return nil
		})
	}
	xflag := regexp.MustCompile(`-X (\$\{GO_IMPORT\}|` + regexp.QuoteMeta(module) + `)/([a-z0-9_/.-]+)\.([A-Za-z_][A-Za-z0-9_]*)=`)
	pkg := regexp.MustCompile(`(\$\{GO_IMPORT\}|` + regexp.QuoteMeta(module) + `|\./)(cmd/[a-z0-9_/-]+)`)
	found := 0
	for _, f := range files {
		src := readFile(t, f)
		for _, m := range xflag.FindAllStringSubmatch(src, -1) {
			found++
			dir, name := filepath.Join("..", m[2]), m[3]
			decl := regexp.MustCompile(`(?m)^(var\s+` + name + `\b|\s+` + name + `\s+(string\s*)?=)`)
			srcs, _ := filepath.Glob(filepath.Join(dir, "*.go"))
			ok := false
			for _, s := range srcs {
				ok = ok || decl.MatchString(readFile(t, s))
			}
			if !ok {
				t.Errorf("%s: -X %s/%s.%s: no package %s declares %s", f, m[1], m[2], name, m[2], name)
			}
		}
		for _, m := range pkg.FindAllStringSubmatch(src, -1) {
			if fi, err := os.Stat(filepath.Join("..", m[2])); err != nil || !fi.IsDir() {
				t.Errorf("%s: builds %s, which is not a package of this module", f, m[2])
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d -X flags; the recipes, the package files and install.sh each stamp a version", found)
	}
}
