package buildsys

import (
	"strings"
	"testing"
)

// reliabilitySpec checks its bench partition on the target and measures
// SQLite there; its root filesystem is built by tools Buildroot lacks.
const reliabilitySpec = `
board "qemu-x86_64" { init = "systemd" }
image "disk" {
  size = "1GiB"
  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "xfs" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "vfat" }
  }
}
test "fsck_time" "bench" { on = partition.bench }
test "sqlite_tps" "bench" {
  on           = partition.bench
  transactions = 10
}
`

func buildVars(t *testing.T, system, src string) string {
	t.Helper()
	v, err := BuildVars(system, loadPlan(t, src), VarsOptions{SpecPath: "board/acme/acme.fsb.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

func checkLines(t *testing.T, text string, want, notWant []string) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		lines[l] = true
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("no line %q in:\n%s", w, text)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("unexpected %q in:\n%s", w, text)
		}
	}
}

func TestBuildrootVars(t *testing.T) {
	text := buildVars(t, "buildroot", matrixSpec)
	checkLines(t, text, []string{
		"BR2_TARGET_ROOTFS_TAR=y",
		`BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="board/acme/acme.fsb.hcl"`,
		"BR2_PACKAGE_HOST_FSBENCH=y", "BR2_PACKAGE_FSBENCH_RUNNER=y",
		"BR2_PACKAGE_HOST_E2FSPROGS=y", "BR2_PACKAGE_HOST_F2FS_TOOLS=y",
		"BR2_PACKAGE_FIO=y", "BR2_INIT_BUSYBOX=y",
		"# xfs: Buildroot has no host package with mkfs.xfs, xfs_db, xfs_repair; install them on the build host (Debian: xfsprogs).",
	}, []string{"BR2_PACKAGE_SQLITE", "BR2_PACKAGE_E2FSPROGS=y", "BR2_PACKAGE_XFSPROGS", "DOSFSTOOLS"})

	text = buildVars(t, "buildroot", reliabilitySpec)
	checkLines(t, text, []string{
		"BR2_PACKAGE_HOST_DOSFSTOOLS=y", "BR2_PACKAGE_HOST_MTOOLS=y",
		"BR2_PACKAGE_SQLITE=y", "BR2_INIT_SYSTEMD=y",
		// fsck_time checks the vfat bench partition on the target.
		"BR2_PACKAGE_DOSFSTOOLS=y", "BR2_PACKAGE_DOSFSTOOLS_FSCK_FAT=y",
	}, []string{"BR2_PACKAGE_FIO", "BR2_PACKAGE_XFSPROGS", "BR2_PACKAGE_HOST_E2FSPROGS"})
}

func TestYoctoVars(t *testing.T) {
	text := buildVars(t, "yocto", matrixSpec)
	checkLines(t, text, []string{
		"inherit fsbench-image",
		`IMAGE_FSTYPES:append = " fsbench"`,
		`FSBENCH_SPEC := "board/acme/acme.fsb.hcl"`,
		`FSBENCH_NATIVE_DEPENDS = "e2fsprogs-native f2fs-tools-native"`,
		`IMAGE_INSTALL:append = " fio"`,
		`INIT_MANAGER = "mdev-busybox"`,
		"# Add meta-oe from meta-openembedded.",
	}, []string{"sqlite3", "meta-filesystems"})
	if !strings.Contains(text, "# xfs: no native recipe provides mkfs.xfs") {
		t.Errorf("xfs is not said to be unbuildable:\n%s", text)
	}

	text = buildVars(t, "yocto", reliabilitySpec)
	checkLines(t, text, []string{
		`FSBENCH_NATIVE_DEPENDS = "dosfstools-native mtools-native"`,
		`IMAGE_INSTALL:append = " sqlite3 dosfstools"`,
		`INIT_MANAGER = "systemd"`,
	}, []string{" fio", "meta-oe"})
}

func TestBuildVarsUnknownSystem(t *testing.T) {
	if _, err := BuildVars("openwrt", loadPlan(t, matrixSpec), VarsOptions{}); err == nil ||
		!strings.Contains(err.Error(), "buildroot, yocto") {
		t.Fatalf("err = %v, want the systems named", err)
	}
}
