package buildsys

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/spec"
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
		`FSBENCH_DEPLOY_DEPENDS = "virtual/kernel:do_deploy"`,
		// f2fs-tools is meta-filesystems', which needs meta-oe (fio's),
		// meta-python and meta-networking.
		"# bblayers.conf: add meta-filesystems, meta-networking, meta-oe, meta-python from meta-openembedded.",
	}, []string{"sqlite3", "DISTRO_FEATURES:append", "\nINIT_MANAGER"})
	if !strings.Contains(text, `(INIT_MANAGER = "mdev-busybox" in the distro's configuration, which fsbench does not set)`) {
		t.Errorf("the board's init is not named for the distro:\n%s", text)
	}
	if !strings.Contains(text, "# xfs: no native recipe provides mkfs.xfs") {
		t.Errorf("xfs is not said to be unbuildable:\n%s", text)
	}

	text = buildVars(t, "yocto", reliabilitySpec)
	checkLines(t, text, []string{
		`FSBENCH_NATIVE_DEPENDS = "dosfstools-native mtools-native"`,
		`IMAGE_INSTALL:append = " sqlite3 dosfstools"`,
	}, []string{" fio", "meta-oe", "\nINIT_MANAGER"})
	if !strings.Contains(text, `INIT_MANAGER = "systemd" in the distro's configuration`) {
		t.Errorf("the board's init is not named for the distro:\n%s", text)
	}
	for _, blk := range []string{"# [image recipe] ", "# [local.conf] "} {
		if !strings.Contains(text, blk) {
			t.Errorf("no block placed %q:\n%s", blk, text)
		}
	}
}

func TestYoctoDeployDepends(t *testing.T) {
	inputs := []spec.InputRef{
		{Role: "kernel", Path: "${var.binaries}/Image"},
		{Role: "dtb", Path: "${var.binaries}/imx8mp-evk.dtb"},
		{Role: "raw", Path: "${var.binaries}/flash.bin"},
		{Role: "file", Path: "${var.binaries}/bootfiles/start4.elf"},
		{Role: "file", Path: "${var.binaries}/config.txt"},
		{Role: "contents-tar", Path: "${var.rootfs_tar}"},
		{Role: "partition-image", Path: "${var.binaries}/vendor.ext4"},
	}
	v, err := BuildVars("yocto", loadPlan(t, matrixSpec), VarsOptions{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	text := v.String()
	checkLines(t, text, []string{
		`FSBENCH_DEPLOY_DEPENDS = "virtual/kernel:do_deploy virtual/bootloader:do_deploy rpi-bootfiles:do_deploy rpi-config:do_deploy"`,
		"# Which recipes deploy ${var.binaries}/vendor.ext4? Add their do_deploy to FSBENCH_DEPLOY_DEPENDS.",
	}, []string{"rootfs_tar?"})
}

func TestBuildrootPostImageMerge(t *testing.T) {
	defconfig := ParseDefconfig(`# a board's defconfig
BR2_aarch64=y
BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/genimage.sh"
BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="-c board/acme/genimage.cfg"
  BR2_TARGET_ROOTFS_EXT2=y
not a setting
`)
	if defconfig["BR2_ROOTFS_POST_IMAGE_SCRIPT"] != "board/acme/genimage.sh" || defconfig["BR2_TARGET_ROOTFS_EXT2"] != "y" ||
		defconfig["BR2_aarch64"] != "y" || len(defconfig) != 4 {
		t.Fatalf("ParseDefconfig = %q", defconfig)
	}
	v, err := BuildVars("buildroot", loadPlan(t, matrixSpec), VarsOptions{SpecPath: "board/acme/acme.fsb.hcl", Defconfig: defconfig})
	if err != nil {
		t.Fatal(err)
	}
	text := v.String()
	checkLines(t, text, []string{
		`BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/genimage.sh $(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"`,
		`BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="-c board/acme/genimage.cfg board/acme/acme.fsb.hcl"`,
	}, []string{"run buildvars with -defconfig"})

	// Merging twice changes nothing: the lines already name fsbench.
	again := ParseDefconfig(text)
	v, err = BuildVars("buildroot", loadPlan(t, matrixSpec), VarsOptions{SpecPath: "board/acme/acme.fsb.hcl", Defconfig: again})
	if err != nil {
		t.Fatal(err)
	}
	checkLines(t, v.String(), []string{
		`BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/genimage.sh $(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"`,
		`BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="-c board/acme/genimage.cfg board/acme/acme.fsb.hcl"`,
	}, nil)
}

func TestBuildVarsUnknownSystem(t *testing.T) {
	if _, err := BuildVars("openwrt", loadPlan(t, matrixSpec), VarsOptions{}); err == nil ||
		!strings.Contains(err.Error(), "buildroot, yocto") {
		t.Fatalf("err = %v, want the systems named", err)
	}
}

// MergeDefconfig sets each symbol once: the board's line replaced in
// place (a "not set" line included), a later duplicate dropped, fsbench's
// other lines appended under their reasons, the rest kept as it was.
func TestMergeDefconfig(t *testing.T) {
	src := `# acme
BR2_arm=y
# BR2_PACKAGE_FIO is not set
BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/genimage.sh"
BR2_ROOTFS_POST_SCRIPT_ARGS="-c board/acme/genimage.cfg"
BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/other.sh"
`
	v, err := BuildVars("buildroot", loadPlan(t, matrixSpec), VarsOptions{SpecPath: "board/acme/acme.fsb.hcl", Defconfig: ParseDefconfig(src)})
	if err != nil {
		t.Fatal(err)
	}
	got := MergeDefconfig(src, v)
	lines := strings.Split(got, "\n")
	for i, want := range []string{
		"# acme", "BR2_arm=y", "BR2_PACKAGE_FIO=y",
		`BR2_ROOTFS_POST_IMAGE_SCRIPT="board/acme/other.sh $(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"`,
		`BR2_ROOTFS_POST_SCRIPT_ARGS="-c board/acme/genimage.cfg"`,
	} {
		if i >= len(lines) || lines[i] != want {
			t.Fatalf("line %d: want %q in:\n%s", i+1, want, got)
		}
	}
	count := map[string]int{}
	for _, l := range lines {
		if k := defconfigSymbol(l); k != "" {
			count[k]++
		}
	}
	for k, n := range count {
		if n != 1 {
			t.Errorf("%s is set %d times:\n%s", k, n, got)
		}
	}
	for _, want := range []string{"BR2_TARGET_ROOTFS_TAR=y", "BR2_PACKAGE_HOST_FSBENCH=y", `BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="board/acme/acme.fsb.hcl"`} {
		if count[strings.SplitN(want, "=", 2)[0]] != 1 || !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("no %s in:\n%s", want, got)
		}
	}
}
