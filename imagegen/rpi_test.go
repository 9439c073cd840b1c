package imagegen

import (
	"archive/tar"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// rpiSpec is a Raspberry Pi 4 SD card as Buildroot's raspberrypi4_64
// output makes it: the firmware's files (%[1]s: a dir or a tar) on the
// FAT boot partition, with the kernel and device tree fsbench adds.
const rpiSpec = `
board "rpi4" {
  arch       = "arm64"
  storage    = "mmcblk0"
  console    = "ttyS0,115200"
  bootloader = "rpi"
  boot {
    partition  = partition.boot
    kernel     = "images/Image"
    dtb        = "images/bcm2711-rpi-4-b.dtb"
    config_txt = ["enable_uart=1", "dtoverlay=disable-bt"]
  }
}

image "sdcard" {
  table = "mbr"
  size  = "160MiB"

  partition "boot" {
    size = "48MiB"
    type = "fat32"
    filesystem { type = "vfat" }
    contents { %[1]s }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
}
`

// rpiFirmware is what Buildroot's rpi-firmware package deploys, its
// config.txt ending in a conditional section.
var rpiFirmware = map[string]string{
	"start4.elf":               "firmware",
	"fixup4.dat":               "fixup",
	"overlays/disable-bt.dtbo": "overlay",
	"config.txt":               "# Buildroot's\nkernel=Image\n[pi4]\narm_boost=1",
}

// The firmware's files reach the FAT partition with the kernel, the device
// tree, cmdline.txt holding the variant's bootargs, and config.txt: the
// board's own, then [all] and fsbench's lines, which the firmware follows
// as the last. fsck.vfat passes the partition.
func TestRaspberryPiBootFiles(t *testing.T) {
	needFS(t, "vfat", "ext4")
	testenv.Tool(t, "mtype")
	for _, tc := range []struct{ name, contents string }{
		{"dir", `dir = "images/rpi-firmware"`},
		{"tar", `tar = "images/rpi-firmware.tar"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeSpec(t, fmt.Sprintf(rpiSpec, tc.contents))
			dir := filepath.Dir(path)
			writeRPiInputs(t, dir, rpiFirmware)
			p, m, out := build(t, path, 1700000000)
			v := p.Variants[0]
			img := filepath.Join(out, m.Images[0].File)
			boot := m.Images[0].Partitions[0]
			fat := img + "@@" + strconv.FormatInt(boot.Offset, 10)
			read := func(name string) string {
				cmd := exec.Command("mtype", "-i", fat, "::"+name)
				cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
				b, err := cmd.Output()
				if err != nil {
					t.Fatalf("mtype %s: %v", name, err)
				}
				return string(b)
			}
			if got, want := read("cmdline.txt"), strings.Join(v.Bootargs, " ")+"\n"; got != want {
				t.Errorf("cmdline.txt = %q, want the bootargs %q", got, want)
			}
			if !strings.Contains(read("cmdline.txt"), "root=PARTUUID=") {
				t.Errorf("cmdline.txt does not name the root partition: %q", read("cmdline.txt"))
			}
			want := "# Buildroot's\nkernel=Image\n[pi4]\narm_boost=1\n\n[all]\n# fsbench variant " + v.Name +
				"\nenable_uart=1\ndtoverlay=disable-bt\narm_64bit=1\nkernel=Image\ndevice_tree=bcm2711-rpi-4-b.dtb\ncmdline=cmdline.txt\n"
			if got := read("config.txt"); got != want {
				t.Errorf("config.txt =\n%s\nwant\n%s", got, want)
			}
			for name, data := range map[string]string{"start4.elf": "firmware", "overlays/disable-bt.dtbo": "overlay", "Image": "arm64 Image", "bcm2711-rpi-4-b.dtb": "\xd0\x0d\xfe\xed rpi4"} {
				if got := read(name); got != data {
					t.Errorf("%s = %q, want %q", name, got, data)
				}
			}
			part := extract(t, img, "boot", boot.Offset, boot.Size)
			if out, err := exec.Command("fsck.vfat", "-n", part).CombinedOutput(); err != nil {
				t.Errorf("fsck.vfat -n: %v\n%s", err, out)
			}
		})
	}
}

// A board config.txt that moves where the firmware reads the kernel or
// its command line from would make fsbench's bootargs dead letters: the
// build stops and says which line.
func TestRaspberryPiConfigThatMovesTheCommandLine(t *testing.T) {
	needFS(t, "vfat", "ext4")
	path := writeSpec(t, fmt.Sprintf(rpiSpec, `dir = "images/rpi-firmware"`))
	fw := map[string]string{"start4.elf": "firmware", "config.txt": "arm_64bit=1\nos_prefix=other/\n"}
	writeRPiInputs(t, filepath.Dir(path), fw)
	s, p, diags := plan.LoadSealed(path, spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	_, err := Build(context.Background(), p, p.Variants[0], Options{OutDir: t.TempDir(), SpecDir: s.Dir, Epoch: 1, CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, p.Variants[0].Board.Arch)})
	if err == nil || !strings.Contains(err.Error(), "config.txt:2: os_prefix moves where the firmware reads") {
		t.Fatalf("err = %v, want config.txt's os_prefix line named", err)
	}
}

// writeRPiInputs writes the kernel, the device tree and the firmware's
// files, as a directory and as a tarball.
func writeRPiInputs(t *testing.T, dir string, firmware map[string]string) {
	t.Helper()
	files := map[string]string{"images/Image": "arm64 Image", "images/bcm2711-rpi-4-b.dtb": "\xd0\x0d\xfe\xed rpi4"}
	for name, data := range firmware {
		files["images/rpi-firmware/"+name] = data
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(dir, "images/rpi-firmware.tar"))
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	tw.WriteHeader(&tar.Header{Name: "./overlays/", Typeflag: tar.TypeDir, Mode: 0o755})
	for name, data := range firmware {
		tw.WriteHeader(&tar.Header{Name: "./" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))})
		tw.Write([]byte(data))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
