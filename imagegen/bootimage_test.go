package imagegen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// bootSpec is a board whose boot files come from a build system's
// output: on a FAT boot partition (%[2]s = partition.boot) or the root's
// /boot (%[2]s = ""), with extlinux.conf or boot.scr (%[1]s); %[3]t and
// %[4]t mark the partition with the files bootable, as U-Boot wants;
// %[5]s is the device tree's attribute.
const bootSpec = `
board "bbb" {
  arch       = "arm"
  storage    = "mmcblk1"
  bootloader = "%[1]s"
  boot {
    %[2]s
    kernel = "images/zImage"
    %[5]s
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
	testenv.Tool(t, "mkimage")
	testenv.Tool(t, "mtype")
	for _, tc := range []struct {
		name, loader, part string
		fdtdir             bool
	}{
		{"extlinux", "extlinux", "partition = partition.boot", false},
		{"uboot", "uboot", "", false},
		{"fdtdir", "extlinux", "", true},
		{"uboot-fdtdir", "uboot", "partition = partition.boot", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onBoot := tc.part != ""
			fdt := `dtb    = "images/am335x-boneblack.dtb"`
			if tc.fdtdir {
				fdt = `fdtdir = "images/dtbs"`
			}
			path := writeSpec(t, fmt.Sprintf(bootSpec, tc.loader, tc.part, onBoot, !onBoot, fdt))
			dir := filepath.Dir(path)
			os.MkdirAll(filepath.Join(dir, "images/dtbs/ti"), 0o755)
			os.WriteFile(filepath.Join(dir, "images/dtbs/ti/am335x-boneblack.dtb"), []byte("\xd0\x0d\xfe\xed boneblack"), 0o644)
			os.WriteFile(filepath.Join(dir, "images/dtbs/am335x-bone.dtb"), []byte("\xd0\x0d\xfe\xed bone"), 0o644)
			kernel := strings.Repeat("zImage bytes ", 1000)
			os.WriteFile(filepath.Join(dir, "images/zImage"), []byte(kernel), 0o644)
			os.WriteFile(filepath.Join(dir, "images/am335x-boneblack.dtb"), []byte("\xd0\x0d\xfe\xed device tree"), 0o644)
			p, m, out := build(t, path, 1700000000)
			v := p.Variants[0]
			if m.Boot == nil {
				t.Fatal("the manifest has no boot files")
			}
			if len(m.Boot.Disks) != 0 {
				t.Errorf("the spec's own kernel, yet the manifest names the initramfs's disks %v", m.Boot.Disks)
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
			sum := sha256.Sum256([]byte(kernel))
			for _, f := range m.Boot.Files {
				want[f.Path] = true
				if strings.HasSuffix(f.Path, "/zImage") && (f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != int64(len(kernel))) {
					t.Errorf("the manifest's kernel %+v is not the input's", f)
				}
			}
			dirPrefix := "/"
			if tc.part == "" {
				dirPrefix = "/boot/"
			}
			dtbFile, fdtLine, fdtLoad := "am335x-boneblack.dtb", "fdt "+dirPrefix+"am335x-boneblack.dtb", dirPrefix+"am335x-boneblack.dtb"
			if tc.fdtdir {
				dtbFile, fdtLine, fdtLoad = "dtbs/ti/am335x-boneblack.dtb", "fdtdir "+dirPrefix+"dtbs", dirPrefix+"dtbs/${fdtfile}"
				if read(dirPrefix+"dtbs/am335x-bone.dtb") != "\xd0\x0d\xfe\xed bone" || !want[dirPrefix+"dtbs/ti/am335x-boneblack.dtb"] {
					t.Errorf("fdtdir's tree is not in the image: %v", m.Boot.Files)
				}
			}
			if read(dirPrefix+"zImage") != kernel || !strings.HasPrefix(read(dirPrefix+dtbFile), "\xd0\x0d\xfe\xed") {
				t.Error("the kernel or the device tree differ from the inputs")
			}
			line := strings.Join(v.Bootargs, " ")
			switch tc.loader {
			case "extlinux":
				conf := read(dirPrefix + "extlinux/extlinux.conf")
				for _, s := range []string{"kernel " + dirPrefix + "zImage\n", fdtLine + "\n", "append " + line + "\n"} {
					if !strings.Contains(conf, s) {
						t.Errorf("extlinux.conf lacks %q:\n%s", s, conf)
					}
				}
				if !want[dirPrefix+"extlinux/extlinux.conf"] || !want[dirPrefix+"zImage"] {
					t.Errorf("manifest files %v", m.Boot.Files)
				}
			case "uboot":
				scr := filepath.Join(t.TempDir(), "boot.scr")
				os.WriteFile(scr, []byte(read(dirPrefix+"boot.scr")), 0o644)
				out, err := exec.Command("mkimage", "-l", scr).CombinedOutput()
				if err != nil {
					t.Fatalf("mkimage -l: %v\n%s", err, out)
				}
				if !regexp.MustCompile(`Image Type:\s+ARM Linux Script`).Match(out) || !strings.Contains(string(out), "fsbench "+v.Name) {
					t.Errorf("mkimage -l:\n%s", out)
				}
				cmd := read(dirPrefix + "boot.cmd")
				for _, s := range []string{`setenv bootargs "` + line + `"`, "${fdt_addr_r} " + fdtLoad + "\n", "bootz ${kernel_addr_r} - ${fdt_addr_r}"} {
					if !strings.Contains(cmd, s) {
						t.Errorf("boot.cmd lacks %q:\n%s", s, cmd)
					}
				}
				if !want[dirPrefix+"boot.scr"] {
					t.Errorf("manifest files %v", m.Boot.Files)
				}
			}
			if _, again, _ := build(t, path, 1700000000); again.Images[0].SHA256 != m.Images[0].SHA256 {
				t.Error("the same inputs and epoch made another image")
			}
		})
	}
}
