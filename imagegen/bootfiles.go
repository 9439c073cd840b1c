package imagegen

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
)

// writeBootFiles writes the kernel command line and the file the board's
// bootloader reads it from, and an fstab for every mounted partition.
func writeBootFiles(dir string, v plan.Variant) error {
	files := map[string]string{
		"bootargs.txt": strings.Join(v.Bootargs, " ") + "\n",
		"fstab":        fstab(v),
	}
	switch v.Board.Bootloader {
	case "extlinux":
		files["extlinux.conf"] = extlinuxConf(v)
	case "uboot":
		files["boot.cmd"] = bootCmd(v)
	case "rpi":
		// The Raspberry Pi firmware reads one line.
		files["cmdline.txt"] = strings.Join(v.Bootargs, " ") + "\n"
	}
	for name, content := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func kernelImage(arch string) string {
	switch arch {
	case "arm64", "riscv64":
		return "Image"
	case "arm":
		return "zImage"
	}
	return "bzImage"
}

func extlinuxConf(v plan.Variant) string {
	return fmt.Sprintf("# fsbench variant %s\ndefault fsbench\nlabel fsbench\n    kernel /%s\n    fdtdir /\n    append %s\n",
		v.Name, kernelImage(v.Board.Arch), strings.Join(v.Bootargs, " "))
}

// bootCmd is a U-Boot script, to be compiled with
// mkimage -A arm -T script -C none -d boot.cmd boot.scr.
func bootCmd(v plan.Variant) string {
	img := kernelImage(v.Board.Arch)
	boot := "bootz"
	if img == "Image" {
		boot = "booti"
	}
	return fmt.Sprintf("# fsbench variant %s\nsetenv bootargs \"%s\"\nload ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} /%s\nload ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} /${fdtfile}\n%s ${kernel_addr_r} - ${fdt_addr_r}\n",
		v.Name, strings.Join(v.Bootargs, " "), img, boot)
}

// fstab names partitions by PARTUUID, as the kernel command line does, so
// that the same line works whatever the board calls the flash device.
func fstab(v plan.Variant) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# fsbench variant %s\n", v.Name)
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			f := p.Filesystem
			if f == nil || (!p.Root && f.Mountpoint == "") {
				continue
			}
			where, pass := f.Mountpoint, 2
			if p.Root {
				where, pass = "/", 1
			}
			if f.Check == nil {
				pass = 0 // nothing to run at boot
			}
			opts := strings.Join(f.Mount, ",")
			if opts == "" {
				opts = "defaults"
			}
			fmt.Fprintf(&b, "PARTUUID=%s\t%s\t%s\t%s\t0\t%d\n", p.UUID, where, f.Type, opts, pass)
		}
	}
	return b.String()
}
