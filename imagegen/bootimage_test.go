package imagegen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// bootSpec is a board whose boot files come from a build system's
// output: on a FAT boot partition (%[2]s = partition.boot) or the root's
// /boot (%[2]s = ""), with extlinux.conf or boot.scr (%[1]s); %[3]t and
// %[4]t mark the partition with the files bootable, as U-Boot wants.
const bootSpec = `
board "bbb" {
  arch       = "arm"
  storage    = "mmcblk1"
  bootloader = "%[1]s"
  boot {
    %[2]s
    kernel = "images/zImage"
    dtb    = "images/am335x-boneblack.dtb"
  }
}

image "emmc" {
  table = "mbr"
  size  = "160MiB"

  partition "boot" {
    size     = "48MiB"
    type     = "fat32"
    bootable = %[3]t
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size     = "96MiB"
    root     = true
    bootable = %[4]t
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
}
`

// The boot files land in the image, in the partition the spec names,
// and read back as the bootloader reads them: mtools or debugfs for the
// files, mkimage -l for boot.scr. The manifest lists them, and the image
// is the same for the same inputs and epoch.
func TestBootFilesInTheImage(t *testing.T) {
	needFS(t, "vfat", "ext4")
	needTool(t, "mkimage")
	needTool(t, "mtype")
	for _, tc := range []struct {
		loader, part string
	}{
		{"extlinux", "partition = partition.boot"},
		{"uboot", ""},
	} {
		t.Run(tc.loader, func(t *testing.T) {
			onBoot := tc.part != ""
			path := writeSpec(t, fmt.Sprintf(bootSpec, tc.loader, tc.part, onBoot, !onBoot))
			dir := filepath.Dir(path)
			os.MkdirAll(filepath.Join(dir, "images"), 0o755)
			kernel := strings.Repeat("zImage bytes ", 1000)
			os.WriteFile(filepath.Join(dir, "images/zImage"), []byte(kernel), 0o644)
			os.WriteFile(filepath.Join(dir, "images/am335x-boneblack.dtb"), []byte("\xd0\x0d\xfe\xed device tree"), 0o644)
			p, m, out := build(t, path, 1700000000)
			v := p.Variants[0]
			if m.Boot == nil {
				t.Fatal("the manifest has no boot files")
			}
			img := filepath.Join(out, m.Images[0].File)
			var read func(name string) string
			if tc.part != "" {
				fat := img + "@@" + strconv.FormatInt(m.Images[0].Partitions[0].Offset, 10)
				read = func(name string) string {
					cmd := exec.Command("mtype", "-i", fat, "::"+name)
					cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
					b, err := cmd.Output()
					if err != nil {
						t.Fatalf("mtype %s: %v", name, err)
					}
					return string(b)
				}
			} else {
				root := extract(t, img, "root.ext4", m.Images[0].Partitions[1].Offset, m.Images[0].Partitions[1].Size)
				read = func(name string) string {
					b, err := exec.Command("debugfs", "-R", "cat "+name, root).Output()
					if err != nil {
						t.Fatalf("debugfs cat %s: %v", name, err)
					}
					return string(b)
				}
			}
			want := map[string]bool{}
			for _, f := range m.Boot.Files {
				want[f] = true
			}
			dirPrefix := "/"
			if tc.part == "" {
				dirPrefix = "/boot/"
			}
			if read(dirPrefix+"zImage") != kernel || !strings.HasPrefix(read(dirPrefix+"am335x-boneblack.dtb"), "\xd0\x0d\xfe\xed") {
				t.Error("the kernel or the device tree differ from the inputs")
			}
			line := strings.Join(v.Bootargs, " ")
			switch tc.loader {
			case "extlinux":
				conf := read("/extlinux/extlinux.conf")
				for _, s := range []string{"kernel /zImage\n", "fdt /am335x-boneblack.dtb\n", "append " + line + "\n"} {
					if !strings.Contains(conf, s) {
						t.Errorf("extlinux.conf lacks %q:\n%s", s, conf)
					}
				}
				if !want["/extlinux/extlinux.conf"] || !want["/zImage"] {
					t.Errorf("manifest files %v", m.Boot.Files)
				}
			case "uboot":
				scr := filepath.Join(t.TempDir(), "boot.scr")
				os.WriteFile(scr, []byte(read("/boot/boot.scr")), 0o644)
				out, err := exec.Command("mkimage", "-l", scr).CombinedOutput()
				if err != nil {
					t.Fatalf("mkimage -l: %v\n%s", err, out)
				}
				if !regexp.MustCompile(`Image Type:\s+ARM Linux Script`).Match(out) || !strings.Contains(string(out), "fsbench "+v.Name) {
					t.Errorf("mkimage -l:\n%s", out)
				}
				cmd := read("/boot/boot.cmd")
				for _, s := range []string{`setenv bootargs "` + line + `"`, "${fdt_addr_r} /boot/am335x-boneblack.dtb", "bootz ${kernel_addr_r} - ${fdt_addr_r}"} {
					if !strings.Contains(cmd, s) {
						t.Errorf("boot.cmd lacks %q:\n%s", s, cmd)
					}
				}
				if !want["/boot/boot.scr"] {
					t.Errorf("manifest files %v", m.Boot.Files)
				}
			}
			if _, again, _ := build(t, path, 1700000000); again.Images[0].SHA256 != m.Images[0].SHA256 {
				t.Error("the same inputs and epoch made another image")
			}
		})
	}
}
