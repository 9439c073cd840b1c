package kernel

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// modulesDep returns modules.dep for k as path -> dependency paths, from an
// independent source: the file itself if present, otherwise depmod's dry
// run (-n) over the cache entry. The Debian package ships no modules.dep,
// and the host may lack kmod, so as a last resort the kmod package is
// unpacked (never installed) into a temporary directory, like a kernel.
func modulesDep(t *testing.T, k *Kernel) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(k.ModulesDir, "modules.dep"))
	if err != nil {
		depmod, err := exec.LookPath("depmod")
		if err != nil {
			dir := t.TempDir()
			if _, err := run(context.Background(), dir, "apt-get", "download", "kmod"); err != nil {
				testenv.Missing(t, "depmod (kmod): "+err.Error())
			}
			debs, _ := filepath.Glob(filepath.Join(dir, "kmod_*.deb"))
			if len(debs) != 1 {
				t.Fatalf("apt-get download kmod left %v", debs)
			}
			if _, err := run(context.Background(), dir, "dpkg", "-x", debs[0], filepath.Join(dir, "x")); err != nil {
				t.Fatal(err)
			}
			depmod = filepath.Join(dir, "x", "bin", "kmod")
		}
		cmd := exec.Command(depmod, "-n", "-b", k.Dir, k.Release)
		cmd.Args[0] = "depmod" // kmod is a multi-call binary
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if data, err = cmd.Output(); err != nil {
			t.Fatalf("depmod: %v: %s", err, stderr.String())
		}
	}
	dep := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// depmod -n prints all its files; modules.dep lines are the only
		// ones shaped "path.ko: deps".
		mod, deps, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.ContainsAny(mod, " \t") || !strings.Contains(mod, ".ko") {
			continue
		}
		dep[mod] = strings.Fields(deps)
	}
	if len(dep) == 0 {
		t.Fatal("modules.dep is empty")
	}
	return dep
}

func TestModuleClosureMatchesModulesDep(t *testing.T) {
	k := testKernel(t)
	dep := modulesDep(t, k)
	byName := map[string]string{}
	for p := range dep {
		byName[normName(strings.TrimSuffix(filepath.Base(p), ".ko"))] = p
	}

	names := []string{"f2fs", "nilfs2", "virtio_blk", "virtio-pci", "ext4", "btrfs", "xfs", "vfat", "dm-flakey", "i6300esb"}
	got, err := k.ModuleClosure(names...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("closure (%d modules): %v", len(got), got)

	// modules.dep lists each module's full transitive dependencies.
	want := map[string]bool{}
	for _, n := range names {
		p, ok := byName[normName(n)]
		if !ok {
			t.Fatalf("%s not in modules.dep", n)
		}
		want[p] = true
		for _, d := range dep[p] {
			want[d] = true
		}
	}
	gotSet := map[string]bool{}
	for _, p := range got {
		if gotSet[p] {
			t.Errorf("%s listed twice", p)
		}
		gotSet[p] = true
		if !want[p] {
			t.Errorf("%s in closure but not needed according to modules.dep", p)
		}
	}
	for p := range want {
		if !gotSet[p] {
			t.Errorf("%s needed according to modules.dep but missing from closure", p)
		}
	}
	// Every module must come after all of its dependencies.
	for i, p := range got {
		for _, d := range dep[p] {
			if j := slices.Index(got, d); j > i {
				t.Errorf("%s (#%d) comes before its dependency %s (#%d)", p, i, d, j)
			}
		}
	}

	again, err := k.ModuleClosure(names...)
	if err != nil || !slices.Equal(again, got) {
		t.Errorf("second ModuleClosure differs: %v, %v", again, err)
	}
}

func TestModuleClosureErrors(t *testing.T) {
	k := testKernel(t)
	if _, err := k.ModuleClosure("no_such_module_xyz"); err == nil || !strings.Contains(err.Error(), "has no no_such_module_xyz driver") {
		t.Errorf("ModuleClosure of an unknown module: %v", err)
	}
	// Built-in would-be modules are skipped, not errors.
	b, err := os.ReadFile(filepath.Join(k.ModulesDir, "modules.builtin"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	name := strings.TrimSuffix(filepath.Base(first), ".ko")
	if got, err := k.ModuleClosure(name); err != nil || len(got) != 0 {
		t.Errorf("ModuleClosure(built-in %s) = %v, %v", name, got, err)
	}
}
