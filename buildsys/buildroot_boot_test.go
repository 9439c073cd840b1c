package buildsys

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/imagegen/userland"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/qemu/initramfs"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/arch"
)

// genimageSh is Buildroot's support/scripts/genimage.sh as its users see
// it: GNU getopt finds -c anywhere among the arguments and the others are
// dropped; genimage reads and writes BINARIES_DIR, with its scratch in
// BUILD_DIR. The test runs it because a board that keeps its genimage
// image runs it beside fsbench's script, with the same arguments.
const genimageSh = `#!/bin/bash
set -e
opts="$(getopt -n genimage.sh -o c: -- "$@")" || exit $?
eval set -- "$opts"
while true; do
	case "$1" in
	-c) GENIMAGE_CFG="$2"; shift 2 ;;
	--) shift; break ;;
	*) echo "unknown option $1" >&2; exit 1 ;;
	esac
done
[ -n "$GENIMAGE_CFG" ] || { echo "Missing argument" >&2; exit 1; }
GENIMAGE_TMP="${BUILD_DIR}/genimage.tmp"
ROOTPATH_TMP="$(mktemp -d)"
trap 'rm -rf "${ROOTPATH_TMP}"' EXIT
rm -rf "${GENIMAGE_TMP}"
genimage --rootpath "${ROOTPATH_TMP}" --tmppath "${GENIMAGE_TMP}" --inputpath "${BINARIES_DIR}" \
	--outputpath "${BINARIES_DIR}" --config "${GENIMAGE_CFG}"
`

// TestBuildrootBoardBootsThroughUBoot runs the post-image step of
// fsbench_qemu_aarch64_uboot_defconfig exactly as Buildroot's Makefile
// does: every script of BR2_ROOTFS_POST_IMAGE_SCRIPT in turn, from
// Buildroot's top directory, with BINARIES_DIR, then
// BR2_ROOTFS_POST_SCRIPT_ARGS (genimage's -c), then
// BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS (the spec), and Buildroot's
// environment. BINARIES_DIR holds real files: Debian's arm64 kernel, a
// busybox root filesystem tarball, U-Boot for QEMU, and the initramfs
// Debian's kernel needs for its disk and filesystem modules (Buildroot's
// kernel has them built in). The board's genimage image must be made
// untouched beside fsbench's variants, and a variant must boot in QEMU
// through U-Boot from the image alone and run its plan to the end.
func TestBuildrootBoardBootsThroughUBoot(t *testing.T) {
	a := arch.ARM64
	for _, tool := range []string{"qemu-system-aarch64", "genimage", "getopt", "mkdosfs", "mcopy", "mke2fs", "mkfs.f2fs", "fakeroot", "apt-get"} {
		testenv.Tool(t, tool)
	}
	if _, err := os.Stat("/usr/lib/u-boot/qemu_arm64/u-boot.bin"); err != nil {
		testenv.Missing(t, "Debian's u-boot-qemu")
	}
	if err := debpkg.CheckArch(context.Background(), a.Debian()); errors.Is(err, debpkg.ErrForeignArchNotConfigured) {
		testenv.Missing(t, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	log := logrus.New()
	log.SetOutput(io.Discard)

	// O= and Buildroot's top directory, with the layout its Makefile gives.
	base := t.TempDir()
	top := filepath.Join(base, "buildroot")
	o := filepath.Join(base, "output")
	images, host, target, build := o+"/images", o+"/host", o+"/target", o+"/build"
	for _, d := range []string{images, host + "/bin", target + "/usr/bin", build, top + "/support/scripts"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExec(t, top+"/support/scripts/genimage.sh", genimageSh)
	ext, err := filepath.Abs(brDir)
	if err != nil {
		t.Fatal(err)
	}
	defconfig := ParseDefconfig(readFile(t, brDir+"/configs/fsbench_qemu_aarch64_uboot_defconfig"))
	expand := func(s string) []string {
		return strings.Fields(strings.ReplaceAll(s, "$(BR2_EXTERNAL_FSBENCH_PATH)", ext))
	}
	var config strings.Builder
	for k, v := range defconfig {
		config.WriteString(k + "=" + v + "\n")
	}
	if err := os.WriteFile(o+"/.config", []byte(config.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	runner := hostAndTarget(t, host, target, a)

	// BINARIES_DIR.
	k, err := qemu.FetchKernel(ctx, log, testbin.CacheDir(), a, kernel.Request{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := k.Uncompressed(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, img, images+"/Image", 0o644)
	copyFile(t, "/usr/lib/u-boot/qemu_arm64/u-boot.bin", images+"/u-boot.bin", 0o644)
	m := qemu.Machine{Arch: a, Disks: []qemu.Disk{{Interface: qemu.Virtio}}, Watchdog: true, HostCounters: true}
	writeWith(t, images+"/initramfs.cpio.gz", func(w io.Writer) error {
		_, err := initramfs.Build(w, initramfs.Boot{Kernel: k, Modules: m.Modules("ext4", "f2fs"), Init: runner})
		return err
	})
	bb, err := userland.FetchBusybox(ctx, log, testbin.CacheDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	writeWith(t, images+"/rootfs.tar", func(w io.Writer) error {
		return bb.WriteTar(w, userland.Options{Console: "ttyAMA0,115200n8", Hostname: "buildroot", Epoch: 1700000000})
	})

	// The post-image step: each script with the same arguments; Debian's
	// kernel adds its initramfs to the spec's variables.
	args := append([]string{images}, expand(defconfig["BR2_ROOTFS_POST_SCRIPT_ARGS"])...)
	args = append(args, expand(defconfig["BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS"])...)
	args = append(args, "initramfs=initramfs.cpio.gz")
	env := append(os.Environ(), "BR2_CONFIG="+o+"/.config", "HOST_DIR="+host, "TARGET_DIR="+target, "BINARIES_DIR="+images,
		"BASE_DIR="+o, "BUILD_DIR="+build, "STAGING_DIR="+host+"/aarch64-buildroot-linux-gnu/sysroot", "CONFIG_DIR="+o, "O="+o,
		"PATH="+host+"/bin:"+os.Getenv("PATH"), "BR2_EXTERNAL_FSBENCH_PATH="+ext, "SOURCE_DATE_EPOCH=1700000000", "CI=1")
	scripts := expand(defconfig["BR2_ROOTFS_POST_IMAGE_SCRIPT"])
	if len(scripts) != 2 {
		t.Fatalf("BR2_ROOTFS_POST_IMAGE_SCRIPT = %q, want genimage.sh and fsbench's", scripts)
	}
	for _, s := range scripts {
		cmd := exec.CommandContext(ctx, s, args...)
		cmd.Dir, cmd.Env = top, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", s, strings.Join(args, " "), err, out)
		}
		t.Logf("%s:\n%s", filepath.Base(s), out)
	}

	// The board's own image, and fsbench's variants beside it.
	sdcard := images + "/sdcard.img"
	if out, err := exec.Command("sfdisk", "-d", sdcard).CombinedOutput(); err != nil || !strings.Contains(string(out), "type=c, bootable") {
		t.Errorf("genimage's sdcard.img: %v\n%s", err, out)
	}
	for _, v := range []string{"ext4", "f2fs"} {
		if _, err := os.Stat(filepath.Join(images, "fsbench", v, "disk.img")); err != nil {
			t.Errorf("variant %s: %v", v, err)
		}
	}

	vdir := filepath.Join(images, "fsbench", "ext4")
	bootargs := cmdline.Split(strings.TrimSpace(readFile(t, vdir+"/bootargs.txt")))
	out, err := driver.RunQEMU(ctx, driver.Variant{Name: "ext4", Dir: vdir, Runner: runner, Bootargs: bootargs},
		driver.QEMU{Accel: "tcg", Disk: qemu.Virtio, MemoryMiB: 512, CPUs: 1, Boot: driver.BootUBoot}, driver.Options{Log: log})
	if err != nil {
		t.Fatalf("boot through U-Boot: %v", err)
	}
	count := map[string]int{}
	for _, r := range out.Summary.Results {
		if r.Status != "ok" {
			t.Errorf("%s %s/%s: %s %s", r.Recipe, r.Name, r.Case, r.Status, r.Error)
		}
		count[r.Recipe]++
	}
	// The spec: two timed boots, two fio cases, two mounts, and the
	// runner's closing result.
	if !out.Summary.Complete || count["boot_time"] != 2 || count["fio"] < 2 || count["mount_time"] != 2 || count["fsbench"] != 1 {
		t.Errorf("complete %v, results %v", out.Summary.Complete, count)
	}
	console := readFile(t, out.Console)
	for _, want := range []string{"Found /extlinux/extlinux.conf", "buildroot login:"} {
		if !strings.Contains(console, want) {
			t.Errorf("the console does not show %q", want)
		}
	}
}

// hostAndTarget puts fsbench into HOST_DIR/bin and the runner for a into
// TARGET_DIR/usr/bin, as Buildroot's packages install them, and returns
// the runner.
func hostAndTarget(t *testing.T, host, target string, a arch.Arch) string {
	t.Helper()
	buildFsbench(t, host+"/bin")
	runner := testbin.Runner(t, a)
	copyFile(t, runner, target+"/usr/bin/fsbench-runner", 0o755)
	return runner
}

// buildFsbench builds this tree's fsbench into dir.
func buildFsbench(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("go", "build", "-o", dir+"/fsbench", "github.com/fsbench/fsbench/cmd/fsbench").CombinedOutput(); err != nil {
		t.Fatalf("go build fsbench: %v\n%s", err, out)
	}
}

func writeExec(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
}

func writeWith(t *testing.T, path string, write func(io.Writer) error) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBuildrootPostImageFirstSpec runs the post-image script as a
// BeagleBone Black's defconfig would, with its genimage -c argument
// first, over a BINARIES_DIR of real files (Debian's armhf kernel and the
// board's device tree, MLO and u-boot.img from Debian's u-boot-omap, a
// busybox root filesystem) with docs/first-spec.md's spec. QEMU has no AM335x
// machine: the image is read back as the boot ROM and U-Boot would read
// it, its FAT partition active and first, with MLO, u-boot.img, the
// kernel, the device tree and an extlinux.conf holding the variant's
// bootargs.
func TestBuildrootPostImageFirstSpec(t *testing.T) {
	a := arch.ARM
	for _, tool := range []string{"mkdosfs", "mcopy", "mtype", "mke2fs", "e2fsck", "sfdisk", "fakeroot", "apt-get"} {
		testenv.Tool(t, tool)
	}
	if err := debpkg.CheckArch(context.Background(), a.Debian()); errors.Is(err, debpkg.ErrForeignArchNotConfigured) {
		testenv.Missing(t, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	log := logrus.New()
	log.SetOutput(io.Discard)
	o := t.TempDir()
	images, host, target := o+"/images", o+"/host", o+"/target"
	board := o + "/board/acme"
	for _, d := range []string{images, host + "/bin", target + "/usr/bin", board} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := firstSpec(t)
	if err := os.WriteFile(board+"/board.fsb.hcl", []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	hostAndTarget(t, host, target, a)

	k, err := qemu.FetchKernel(ctx, log, testbin.CacheDir(), a, kernel.Request{})
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, k.Image, images+"/zImage", 0o644)
	copyFile(t, filepath.Join(k.Dir, "usr/lib/linux-image-"+k.Release, "am335x-boneblack.dtb"), images+"/am335x-boneblack.dtb", 0o644)
	pkg, err := debpkg.Candidate(ctx, log, testbin.CacheDir(), "u-boot-omap", a.Debian())
	if err != nil {
		t.Fatal(err)
	}
	uboot, err := debpkg.Fetch(ctx, log, testbin.CacheDir(), pkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"MLO", "u-boot.img"} {
		copyFile(t, filepath.Join(uboot, "usr/lib/u-boot/am335x_evm", f), images+"/"+f, 0o644)
	}
	bb, err := userland.FetchBusybox(ctx, log, testbin.CacheDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	writeWith(t, images+"/rootfs.tar", func(w io.Writer) error {
		return bb.WriteTar(w, userland.Options{Console: "ttyS0,115200n8", Hostname: "beaglebone", Epoch: 1700000000})
	})

	// beaglebone_defconfig's BR2_ROOTFS_POST_SCRIPT_ARGS, then the spec;
	// the flag is for this test, without genimage.sh, to build one variant.
	script, err := filepath.Abs(brPostImage)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, script, images,
		"-c", "board/beagleboard/beaglebone/genimage.cfg", "board/acme/board.fsb.hcl", "-variant", "ext4")
	cmd.Dir = o
	cmd.Env = append(os.Environ(), "HOST_DIR="+host, "TARGET_DIR="+target, "BINARIES_DIR="+images, "BASE_DIR="+o,
		"BUILD_DIR="+o+"/build", "BR2_CONFIG="+o+"/.config", "SOURCE_DATE_EPOCH=1700000000", "CI=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("post-image.sh: %v\n%s", err, out)
	}
	vdir := images + "/fsbench/ext4"
	img := vdir + "/emmc.img"
	table, err := exec.Command("sfdisk", "-d", img).CombinedOutput()
	if err != nil || !regexp.MustCompile(`emmc\.img1 : start=\s*\d+, size=\s*131072, type=c, bootable`).Match(table) {
		t.Errorf("the boot ROM reads MLO from the first, active FAT partition: %v\n%s", err, table)
	}
	m, err := imagegen.ReadManifest(vdir + "/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	fat := fmt.Sprintf("%s@@%d", img, m.Images[0].Partitions[0].Offset)
	read := func(name string) []byte {
		c := exec.Command("mtype", "-i", fat, "::"+name)
		c.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		b, err := c.Output()
		if err != nil {
			t.Fatalf("mtype %s: %v", name, err)
		}
		return b
	}
	for _, f := range []string{"MLO", "u-boot.img", "zImage", "am335x-boneblack.dtb"} {
		if want, _ := os.ReadFile(images + "/" + f); !bytes.Equal(read(f), want) {
			t.Errorf("%s in the boot partition differs from BINARIES_DIR's", f)
		}
	}
	conf := string(read("extlinux/extlinux.conf"))
	bootargs := strings.TrimSpace(readFile(t, vdir+"/bootargs.txt"))
	if !strings.Contains(conf, "append "+bootargs+"\n") || !strings.Contains(bootargs, "console=ttyS0,115200n8") ||
		!strings.Contains(bootargs, "root=PARTUUID=") {
		t.Errorf("extlinux.conf:\n%s\nbootargs %q", conf, bootargs)
	}
	if !strings.Contains(string(out), "FSB_VAR_rootfs_tar is set, and the spec declares no variable \"rootfs_tar\": ignored") {
		t.Errorf("the build does not say it ignored rootfs_tar, which docs/first-spec.md's spec does not declare:\n%s", out)
	}
}

// firstSpec is the spec of docs/first-spec.md, "A spec in five minutes":
// a BeagleBone Black's eMMC from a Buildroot build.
func firstSpec(t *testing.T) string {
	t.Helper()
	spec := docSpec(t, "../docs/first-spec.md", "# A spec in five minutes")
	if !strings.Contains(spec, "beaglebone-black") {
		t.Fatalf("docs/first-spec.md's spec is not the BeagleBone's:\n%s", spec)
	}
	return spec
}

// readmeSpec is the README's minimal spec, which runs in QEMU as it is.
func readmeSpec(t *testing.T) string {
	t.Helper()
	return docSpec(t, "../README.md", "## A minimal spec")
}

// docSpec is the first ```hcl block after heading in the Markdown file.
func docSpec(t *testing.T, path, heading string) string {
	t.Helper()
	_, after, ok := strings.Cut("\n"+readFile(t, path), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", path, heading)
	}
	_, after, _ = strings.Cut(after, "```hcl\n")
	spec, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("%s has no spec under %q", path, heading)
	}
	return spec
}
