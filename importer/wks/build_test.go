package wks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// openembedded-core's sdimage-bootpart.wks, imported and built by
// fsbench from real inputs (boot files, a root filesystem directory,
// measured with du as wic measures them): the partitions lie where wic's
// arithmetic puts them, and their filesystems pass fsck with the files
// in place.
func TestBuildSdimageBootpart(t *testing.T) {
	testenv.Tools(t, "sfdisk", "du", "mkfs.vfat", "mcopy", "mdir", "mke2fs", "e2fsck", "debugfs", "fsck.vfat")
	s, err := Import("testdata/sdimage-bootpart.wks")
	if err != nil || s.Refused() {
		t.Fatalf("import: %v, %v", err, s.Findings)
	}
	dir := t.TempDir()
	boot, rootfs := bootFiles(t, dir), rootFS(t, dir)
	// What bitbake hands wic: the boot files' apparent size
	// (bootimg_partition.py, du -bks) and the root's usage (du -ks).
	bootKiB := duKiB(t, "--apparent-size", boot)
	rootKiB := duKiB(t, rootfs)
	vars := map[string]string{"boot_dir": boot, "rootfs": rootfs,
		"boot_kib": strconv.FormatInt(bootKiB, 10), "rootfs_kib": strconv.FormatInt(rootKiB, 10)}
	img := buildImported(t, s, dir, vars)

	want := wicPlaces(bootKiB, rootKiB)
	got := readTable(t, img)
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("sfdisk -J reads %+v; wic places %+v", got, want)
	}
	bootImg := testenv.CopyRange(t, img, got[0].Start*512, got[0].Size*512, filepath.Join(dir, "boot.vfat"))
	rootImg := testenv.CopyRange(t, img, got[1].Start*512, got[1].Size*512, filepath.Join(dir, "root.ext4"))
	testenv.Run(t, "", "fsck.vfat", "-n", bootImg)
	testenv.Run(t, "", "e2fsck", "-fn", rootImg)
	if out := testenv.Run(t, "", "mdir", "-b", "-i", bootImg, "::/"); !strings.Contains(out, "::/zImage") {
		t.Errorf("the boot partition lacks the kernel: mdir shows\n%s", out)
	}
	if out := testenv.Run(t, "", "debugfs", "-R", "cat /etc/hostname", rootImg); out != "sdimage\n" {
		t.Errorf("/etc/hostname of the root partition reads %q", out)
	}
}

// part is a partition as sfdisk -J gives it.
type part struct {
	Start, Size int64
	Type        string
	Bootable    bool
}

// wicPlaces is wic's placement of the file's two partitions, computed
// as wic does from its own code, not from the spec: get_rootfs_size
// (partition.py: int((KiB + max(--size - KiB, 10 MiB of extra space)) *
// 1.3) KiB), and layout_partitions (direct.py: the first partition one
// sector after the MBR, each start rounded up to --align 4 KiB). The
// boot partition is bootable (--active) with MBR id 0x0c (parted's
// fat32), the root 0x83.
func wicPlaces(bootKiB, rootKiB int64) [2]part {
	size := func(kib, requested int64) int64 {
		return int64(math.Floor(float64(kib+max(requested-kib, 10240))*1.3)) * 2
	}
	alignUp := func(s int64) int64 { return (s + 7) / 8 * 8 }
	boot := part{Start: alignUp(1), Size: size(bootKiB, 16*1024), Type: "c", Bootable: true}
	root := part{Start: alignUp(boot.Start + boot.Size), Size: size(rootKiB, rootKiB), Type: "83"}
	return [2]part{boot, root}
}

func bootFiles(t *testing.T, dir string) string {
	boot := filepath.Join(dir, "deploy")
	write(t, filepath.Join(boot, "zImage"), bytes.Repeat([]byte("kernel"), 700_000))
	write(t, filepath.Join(boot, "am335x-boneblack.dtb"), bytes.Repeat([]byte{0xd0, 0x0d, 0xfe, 0xed}, 16_000))
	write(t, filepath.Join(boot, "u-boot.img"), bytes.Repeat([]byte("u-boot"), 90_000))
	return boot
}

func rootFS(t *testing.T, dir string) string {
	root := filepath.Join(dir, "rootfs")
	write(t, filepath.Join(root, "etc", "hostname"), []byte("sdimage\n"))
	write(t, filepath.Join(root, "bin", "busybox"), bytes.Repeat([]byte("busybox"), 150_000))
	write(t, filepath.Join(root, "var", "log", "messages"), []byte("boot\n"))
	return root
}

func write(t *testing.T, path string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func duKiB(t *testing.T, args ...string) int64 {
	out := testenv.Run(t, "", "du", append([]string{"-ks"}, args...)...)
	n, err := strconv.ParseInt(strings.Fields(out)[0], 10, 64)
	if err != nil {
		t.Fatalf("du: %q", out)
	}
	return n
}

// buildImported writes the spec, builds it with the variables' values,
// and returns the image's path.
func buildImported(t *testing.T, s *importer.Spec, dir string, vars map[string]string) string {
	src, err := importer.Write(s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "imported.fsb.hcl")
	write(t, p, src)
	opts := spec.Options{Roots: []string{dir}}
	for k, v := range vars {
		opts.Vars = append(opts.Vars, k+"="+v)
	}
	sp, pl, diags := plan.LoadSealed(p, opts)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	out := filepath.Join(dir, "out")
	log := logrus.New()
	log.SetOutput(io.Discard)
	if _, err := imagegen.Build(context.Background(), pl, pl.Variants[0], imagegen.Options{OutDir: out, SpecDir: sp.Dir, Epoch: 1, Jobs: 1, Log: log}); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(out, pl.Variants[0].Name, "disk.img")
	if _, err := os.Stat(img); err != nil {
		t.Fatal(err)
	}
	return img
}

func readTable(t *testing.T, img string) []part {
	var dump struct {
		Table struct {
			Label      string
			Partitions []part
		} `json:"partitiontable"`
	}
	if err := json.Unmarshal([]byte(testenv.Run(t, "", "sfdisk", "-J", img)), &dump); err != nil {
		t.Fatal(err)
	}
	if dump.Table.Label != "dos" {
		t.Errorf("the table is %q, wic's --ptable msdos is dos", dump.Table.Label)
	}
	return dump.Table.Partitions
}
