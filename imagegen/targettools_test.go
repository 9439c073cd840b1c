package imagegen

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testbin"
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
		needTool(t, tool)
	}
	s, p, diags := plan.Load(writeSpec(t, busyboxWithChecks), spec.Options{}, true)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	v := p.Variants[0]
	out := t.TempDir()
	m, err := Build(context.Background(), p, v, Options{OutDir: out, SpecDir: s.Dir, Epoch: 1700000000,
		CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, arch.X86_64)})
	switch {
	case errors.Is(err, debpkg.ErrUnreachable):
		t.Skipf("cannot reach the Debian mirror: %v", err)
	case errors.Is(err, debpkg.ErrForeignArchNotConfigured):
		t.Skipf("%v (scripts/test.sh does it)", err)
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

func TestTargetPrograms(t *testing.T) {
	rp := &runplan.Plan{
		Partitions: []runplan.Partition{
			{Name: "a", FS: "ext4", Mkfs: []string{"mke2fs", "-t", "ext4", "{device}"}},
			{Name: "b", FS: "xfs", Check: []string{"/opt/bin/xfs_check", "{device}"}, Mkfs: []string{"mkfs.xfs", "{device}"}},
			{Name: "c", FS: "f2fs", Mkfs: []string{"mkfs.f2fs", "{device}"}},
			{Name: "d", FS: "nilfs2", Mkfs: []string{"mkfs.nilfs2", "{device}"}},
		},
		Steps: []runplan.Step{
			{Recipe: "fsck_time", On: "a"},
			{Recipe: "fsck_time", On: "b"},
			{Recipe: "fio", On: "c"},
			{Recipe: "mount_time", On: "c"},
			{Recipe: "power_loss", On: "d"},
			{Recipe: "dm_flakey", On: "a"},
			{Recipe: "sqlite_tps", On: "a"},
		},
	}
	got := targetPrograms(rp)
	want := []string{"/opt/bin/xfs_check", "e2fsck", "mke2fs", "mkfs.nilfs2", "sqlite3"}
	if !slices.Equal(got, want) {
		t.Errorf("targetPrograms = %q, want %q", got, want)
	}
}
