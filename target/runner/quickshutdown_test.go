package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"golang.org/x/sys/unix"
)

func TestBlockMountsSkipsVirtualFilesystems(t *testing.T) {
	const mountinfo = `22 1 254:1 / / rw,noatime shared:1 - ext4 /dev/root rw
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:2 - proc proc rw
24 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:3 - sysfs sysfs rw
25 22 0:5 / /dev rw,relatime shared:4 - devtmpfs devtmpfs rw,size=120000k
26 22 0:23 / /tmp rw shared:5 - tmpfs tmpfs rw
31 22 254:2 / /mnt/bench rw,noatime shared:9 - f2fs /dev/vda2 rw
32 31 7:0 / /mnt/bench/with\040space rw shared:10 - ext4 /dev/loop0 rw
`
	got, err := blockMounts(strings.NewReader(mountinfo))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/mnt/bench/with space", "/mnt/bench", "/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blockMounts = %q, want %q", got, want)
	}
}

// TestRemountReadOnlyLeavesFilesystemClean writes to a mounted ext4 and
// remounts it read-only, as the quick shutdown does before reboot(2): the
// mount must be read-only and the filesystem clean, with no journal to
// replay at the next mount.
func TestRemountReadOnlyLeavesFilesystemClean(t *testing.T) {
	part := loopPart(t, "ext4", 64<<20)
	dir, err := (&step.Env{}).MountPart(part)
	if err != nil {
		t.Fatal(err)
	}
	defer linux.Unmount(dir)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := remountReadOnly([]string{dir}); err != nil {
		t.Fatal(err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Flags&unix.ST_RDONLY == 0 {
		t.Error("still mounted read-write")
	}
	out, err := exec.Command("dumpe2fs", "-h", part.Device).CombinedOutput()
	if err != nil {
		t.Fatalf("dumpe2fs: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Filesystem state:         clean") || strings.Contains(string(out), "needs_recovery") {
		t.Errorf("not clean after the read-only remount:\n%s", out)
	}
}

// TestRemountReadOnlyReportsBusy keeps a file open for writing: the
// remount must fail, so that the shutdown falls back to init.
func TestRemountReadOnlyReportsBusy(t *testing.T) {
	part := loopPart(t, "ext4", 64<<20)
	dir, err := (&step.Env{}).MountPart(part)
	if err != nil {
		t.Fatal(err)
	}
	defer linux.Unmount(dir)
	f, err := os.Create(filepath.Join(dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := remountReadOnly([]string{dir}); err == nil {
		t.Error("remounted read-only with a file open for writing")
	}
}
