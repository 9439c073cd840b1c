package imagegen

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/runplan"
)

const busyboxWithChecks = `
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "200MiB"
  partition "rootfs" {
    size = "96MiB"
    root = true
    filesystem { type = "ext4" }
    contents { userland = "busybox" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fsck_time" "bench" { on = partition.bench }
test "sqlite_tps" "bench" { on = partition.bench }
`

// TestBusyboxCarriesTheTestsTools builds a busybox userland whose plan
// runs e2fsck and sqlite3 on the target, and reads the programs, their
// loader and libraries back from the built root filesystem.
func TestBusyboxCarriesTheTestsTools(t *testing.T) {
	needFS(t, "ext4")
	for _, tool := range []string{"apt-get", "fakeroot", "debugfs"} {
		testenv.Tool(t, tool)
	}
	s, p, diags := plan.LoadSealed(writeSpec(t, busyboxWithChecks), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	v := p.Variants[0]
	out := t.TempDir()
	m, err := Build(context.Background(), p, v, Options{OutDir: out, SpecDir: s.Dir, Epoch: 1700000000,
		CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, arch.X86_64)})
	switch {
	case errors.Is(err, debpkg.ErrUnreachable):
		testenv.Missing(t, "the Debian mirror: "+err.Error())
	case errors.Is(err, debpkg.ErrForeignArchNotConfigured):
		testenv.Missing(t, err.Error())
	case err != nil:
		t.Fatal(err)
	}
	u := m.Userland
	if u == nil || u.Programs["e2fsck"] == "" || u.Programs["sqlite3"] == "" {
		t.Fatalf("manifest userland %+v", u)
	}
	for _, want := range []string{"e2fsprogs:amd64=", "sqlite3:amd64=", "libc6:amd64="} {
		if !slices.ContainsFunc(u.ToolPackages, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("tool packages %v lack %s", u.ToolPackages, want)
		}
	}
	img := m.Images[0]
	root := img.Partitions[0]
	part := extract(t, filepath.Join(out, v.Name, img.File), root.Name, root.Offset, root.Size)
	for _, c := range []struct{ path, want string }{
		{u.Programs["e2fsck"], "Type: regular"},
		{u.Programs["sqlite3"], "Type: regular"},
		{"/lib64/ld-linux-x86-64.so.2", "Type: symlink"},
		{"/lib/x86_64-linux-gnu/libext2fs.so.2", "Type: symlink"},
		{"/bin/busybox", "Type: regular"},
		{runplan.RunnerPath, "Type: regular"},
	} {
		stat := run(t, "debugfs", "-R", "stat "+c.path, part)
		if !strings.Contains(stat, c.want) || !strings.Contains(stat, "User:     0") {
			t.Errorf("%s in the root filesystem: want %q owned by root:\n%s", c.path, c.want, stat)
		}
	}
	// Busybox's own applets are not replaced.
	if got := run(t, "debugfs", "-R", "stat /sbin/init", part); !strings.Contains(got, "Type: symlink") {
		t.Errorf("/sbin/init:\n%s", got)
	}
	if _, err := exec.LookPath("e2fsck"); err == nil {
		if out, err := exec.Command("e2fsck", "-fn", part).CombinedOutput(); err != nil {
			t.Errorf("e2fsck -fn on the root filesystem: %v\n%s", err, out)
		}
	}
}

// TestTargetPrograms: the programs a busybox userland must carry are what
// the plan compiled from the recipes' needs: the checker and mkfs of the
// partitions the tests check or re-make, and sqlite3; not fio, which has a
// built-in engine, nor anything for mount_time.
func TestTargetPrograms(t *testing.T) {
	const src = `
image "disk" {
  table = "gpt"
  size  = "2GiB"
  partition "rootfs" {
    size = "256MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "a" {
    size = "256MiB"
    filesystem { type = "ext4" }
  }
  partition "b" {
    size = "512MiB"
    filesystem { type = "xfs" }
  }
  partition "c" {
    size = "256MiB"
    filesystem { type = "f2fs" }
  }
  partition "d" {
    grow = true
    filesystem { type = "nilfs2" }
  }
}

test "fsck_time" "a" { on = partition.a }
test "fsck_time" "b" { on = partition.b }
test "fio" "c" { on = partition.c }
test "mount_time" "c" { on = partition.c }
test "power_loss" "d" { on = partition.d }
test "dm_flakey" "a" { on = partition.a }
test "sqlite_tps" "a" { on = partition.a }
`
	_, p, diags := plan.Load(writeSpec(t, src), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	rp, err := payload.Compile(p, &p.Variants[0])
	if err != nil {
		t.Fatal(err)
	}
	got := targetPrograms(rp)
	// power_loss writes to the nilfs2 partition: its cleaner runs beside.
	want := []string{"e2fsck", "mke2fs", "mkfs.nilfs2", "nilfs_cleanerd", "sqlite3", "xfs_repair"}
	if !slices.Equal(got, want) {
		t.Errorf("targetPrograms = %q, want %q", got, want)
	}
}
