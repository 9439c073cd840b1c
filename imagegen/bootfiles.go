package imagegen

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/plan"
)

// bootFiles writes, under temporary names and synced, the kernel command
// line and the file the board's bootloader reads it from, and an fstab
// for every mounted partition; the build commits them with the manifest.
// They depend on the plan alone, so they are written while the
// filesystems are built.
//
// Every spec value in them was checked at its attribute (package
// cmdline's rules); they are checked again here, so that a value that
// would add an argument, a line or a command is never written.
func bootFiles(dir string, v plan.Variant) ([]*atomicfile.File, error) {
	files, err := bootFileContents(v)
	if err != nil {
		return nil, fmt.Errorf("boot files of variant %s: %w", v.Name, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []*atomicfile.File
	for _, name := range names {
		f, err := prepared(filepath.Join(dir, name), []byte(files[name]))
		if err == nil {
			out = append(out, f)
			err = f.Sync()
		}
		if err != nil {
			abortAll(out)
			return nil, err
		}
	}
	return out, nil
}

// prepared writes data under a temporary name for path, for
// atomicfile.CommitAll to sync and rename later.
func prepared(path string, data []byte) (*atomicfile.File, error) {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return nil, err
	}
	return f, nil
}

func abortAll(files []*atomicfile.File) {
	for _, f := range files {
		f.Abort()
	}
}

// bootFileContents are the boot files of v by name: bootargs.txt and
// fstab always, and the bootloader's file.
func bootFileContents(v plan.Variant) (map[string]string, error) {
	if err := cmdline.Word(v.Name); err != nil {
		return nil, fmt.Errorf("variant name %q: %v", v.Name, err)
	}
	line, err := cmdline.Line(v.Bootargs)
	if err != nil {
		return nil, err
	}
	tab, err := fstab(v)
	if err != nil {
		return nil, err
	}
	files := map[string]string{"bootargs.txt": line + "\n", "fstab": tab}
	switch v.Board.Bootloader {
	case "extlinux":
		files["extlinux.conf"] = extlinuxConf(v, line)
	case "uboot":
		files["boot.cmd"] = bootCmd(v, line)
	case "rpi":
		// The Raspberry Pi firmware reads one line.
		files["cmdline.txt"] = line + "\n"
	}
	return files, nil
}

func extlinuxConf(v plan.Variant, line string) string {
	return fmt.Sprintf("# fsbench variant %s\ndefault fsbench\nlabel fsbench\n    kernel /%s\n    fdtdir /\n    append %s\n",
		v.Name, v.Board.Arch.KernelImage(), line)
}

// bootCmd is a U-Boot script, to be compiled with
// mkimage -A arm -T script -C none -d boot.cmd boot.scr. The command line
// is set in double quotes, inside which hush only reads ", \ and $, which
// no kernel argument holds (cmdline.Word).
func bootCmd(v plan.Variant, line string) string {
	img := v.Board.Arch.KernelImage()
	boot := "bootz"
	if img == "Image" {
		boot = "booti"
	}
	return fmt.Sprintf("# fsbench variant %s\nsetenv bootargs \"%s\"\nload ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} /%s\nload ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} /${fdtfile}\n%s ${kernel_addr_r} - ${fdt_addr_r}\n",
		v.Name, line, img, boot)
}

// fstab names partitions by PARTUUID, as the kernel command line does, so
// that the same line works whatever the board calls the flash device. The
// mount point is escaped as getmntent(3) reads it; every other field is
// one word.
func fstab(v plan.Variant) (string, error) {
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
			for _, o := range f.Mount {
				if err := cmdline.MountOption(o); err != nil {
					return "", fmt.Errorf("partition %s: mount option %q: %v", p.Name, o, err)
				}
			}
			opts := strings.Join(f.Mount, ",")
			if opts == "" {
				opts = "defaults"
			}
			if err := cmdline.Path(where); err != nil {
				return "", fmt.Errorf("partition %s: mount point %q: %v", p.Name, where, err)
			}
			for _, w := range []string{"PARTUUID=" + p.UUID, f.Type} {
				if err := cmdline.Word(w); err != nil {
					return "", fmt.Errorf("partition %s: %q: %v", p.Name, w, err)
				}
			}
			fmt.Fprintf(&b, "PARTUUID=%s\t%s\t%s\t%s\t0\t%d\n", p.UUID, cmdline.FstabField(where), f.Type, opts, pass)
		}
	}
	return b.String(), nil
}
