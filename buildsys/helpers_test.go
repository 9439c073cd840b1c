package buildsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// loadPlan resolves a spec given as text, with -var values.
func loadPlan(t *testing.T, src string, vars ...string) *plan.Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadPlanFile(t, path, vars...)
}

func loadPlanFile(t *testing.T, path string, vars ...string) *plan.Plan {
	t.Helper()
	_, p, diags := plan.Load(path, spec.Options{Vars: vars, Planning: true})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", path, diags)
	}
	return p
}

// wantOptions checks the value of each option; "" means absent.
func wantOptions(t *testing.T, f *Fragment, want map[string]string) {
	t.Helper()
	got := f.Options()
	for name, v := range want {
		if got[name] != v {
			t.Errorf("CONFIG_%s = %q, want %q\n%s", name, got[name], v, f)
		}
	}
}

// A spec with a matrix of root filesystems and a bench partition of
// another type, on QEMU.
const matrixSpec = `
matrix "fs" { values = ["ext4", "f2fs"] }
board "qemu-x86_64" {
  arch    = "x86_64"
  storage = "vda"
}
image "disk" {
  size = "1GiB"
  partition "rootfs" {
    size = "300MiB"
    root = true
    filesystem { type = matrix.fs }
  }
  partition "bench" {
    grow = true
    filesystem { type = "xfs" }
  }
}
test "fio" "bandwidth" {
  on   = partition.bench
  size = "16MiB"
  bs   = ["4KiB"]
  nrfiles = 4
}
`
