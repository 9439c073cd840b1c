package imagegen

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/qemu/initramfs"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/arch"
)

// BootManifest says what build put into the image for the bootloader.
type BootManifest struct {
	Partition string `json:"partition"`
	Dir       string `json:"dir"`
	// Kernel is the Debian kernel package (apt's pkg:arch=version) or the
	// input file it came from.
	Kernel string `json:"kernel"`
	// Disks are the QEMU disk interfaces whose drivers fsbench's
	// initramfs loads (storageDisks); empty with the spec's own kernel.
	Disks []string `json:"disks,omitempty"`
	// Files are the files written, by their paths inside the partition.
	Files []BootFileManifest `json:"files"`
}

// BootFileManifest is one file build put into the image for the
// bootloader.
type BootFileManifest struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// initramfsName is fsbench's initramfs (or the spec's) in the image.
const initramfsName = "initramfs.cpio.gz"

// bootLayer writes the tarball of what the bootloader reads from the
// image (plan.Boot): the kernel, the device tree and the initramfs, and
// extlinux/extlinux.conf or boot.scr naming them, under the boot
// directory of the partition that takes them. Without a kernel in the
// spec, the kernel is Debian's for the board's architecture and the
// initramfs fsbench's own, whose /init is the runner, loading the
// modules of the board's storage (storageDisks) and of the tests.
func (b *builder) bootLayer(ctx context.Context, p *plan.Plan, v plan.Variant, work string) (string, *BootManifest, error) {
	bt := v.Board.Boot
	if bt == nil {
		return "", nil, nil
	}
	a := v.Board.Arch
	line, err := cmdline.Line(v.Bootargs)
	if err != nil {
		return "", nil, err
	}
	bm := &BootManifest{Partition: bt.Partition, Dir: bt.Dir}
	var files []bootFile
	kernelName := a.KernelImage()
	if bt.Kernel == "" {
		k, initrd, err := b.debianBoot(ctx, p, v, work)
		if err != nil {
			return "", nil, err
		}
		img := k.Image
		if a != arch.X86_64 {
			// U-Boot's booti takes the raw arm64 Image; bootz the zImage.
			if img, err = k.Uncompressed(ctx, filepath.Join(b.opts.cacheDir(), "uncompressed")); err != nil {
				return "", nil, err
			}
		}
		bm.Kernel = k.Version.String()
		for _, d := range storageDisks(v.Board.Storage) {
			bm.Disks = append(bm.Disks, d.Interface)
		}
		files = append(files, bootFile{name: kernelName, src: img}, bootFile{name: initramfsName, src: initrd})
	} else {
		bm.Kernel = bt.Kernel
		files = append(files, bootFile{name: kernelName, src: b.input(bt.Kernel)})
		if bt.Initramfs != "" {
			files = append(files, bootFile{name: initramfsName, src: b.input(bt.Initramfs)})
		}
	}
	hasInitrd := slices.ContainsFunc(files, func(f bootFile) bool { return f.name == initramfsName })
	in := func(name string) string { return path.Join(bt.Dir, name) }
	// The device tree: one file, or a directory U-Boot picks ${fdtfile}
	// from (the Raspberry Pi firmware picks by the board's model from the
	// partition's top); fdtLine is extlinux.conf's line for it, fdtLoad
	// the file boot.cmd loads.
	fdtLine, fdtLoad, dtb := "", "", ""
	switch {
	case bt.DTB != "":
		dtb = path.Base(filepath.ToSlash(bt.DTB))
		if err := cmdline.Word(dtb); err != nil || dtb == "." || dtb == ".." {
			return "", nil, fmt.Errorf("device tree file name %q cannot be named in a boot file", dtb)
		}
		files = append(files, bootFile{name: dtb, src: b.input(bt.DTB)})
		fdtLine, fdtLoad = "fdt "+in(dtb), in(dtb)
	case bt.FDTDir != "":
		into := fdtDirName
		if v.Board.Bootloader == "rpi" {
			into = ""
		}
		dtbs, err := treeFiles(b.input(bt.FDTDir), into)
		if err != nil {
			return "", nil, fmt.Errorf("fdtdir %s: %w", bt.FDTDir, err)
		}
		files = append(files, dtbs...)
		fdtLine, fdtLoad = "fdtdir "+in(fdtDirName), in(fdtDirName)+"/${fdtfile}"
	}
	switch v.Board.Bootloader {
	case "rpi":
		rpi, err := b.rpiFiles(ctx, v, line, kernelName, hasInitrd, dtb)
		if err != nil {
			return "", nil, err
		}
		files = append(files, rpi...)
	case "extlinux":
		conf := inImageExtlinux(v.Name, line, in(kernelName), in(initramfsName), hasInitrd, fdtLine)
		files = append(files, bootFile{name: "extlinux/extlinux.conf", data: []byte(conf)})
	case "uboot":
		cmd := inImageBootCmd(v.Name, line, a, in(kernelName), in(initramfsName), hasInitrd, fdtLoad)
		scr, err := b.mkimageScript(ctx, work, a, v.Name, cmd)
		if err != nil {
			return "", nil, err
		}
		files = append(files, bootFile{name: "boot.cmd", data: []byte(cmd)}, bootFile{name: "boot.scr", src: scr})
	default:
		return "", nil, fmt.Errorf("bootloader %q reads no boot files from the image", v.Board.Bootloader)
	}
	tarPath := filepath.Join(work, "boot.tar")
	err = atomicfile.WriteFunc(tarPath, 0o644, func(w io.Writer) error {
		bm.Files, err = writeBootTar(w, bt.Dir, files, b.opts.Epoch)
		return err
	})
	if err != nil {
		return "", nil, fmt.Errorf("boot files: %w", err)
	}
	return tarPath, bm, nil
}

// debianBoot fetches Debian's kernel for the board and writes fsbench's
// initramfs for it.
func (b *builder) debianBoot(ctx context.Context, p *plan.Plan, v plan.Variant, work string) (*kernel.Kernel, string, error) {
	a := v.Board.Arch
	bin, err := payload.FindRunner(b.opts.Runner, a)
	if err != nil {
		return nil, "", fmt.Errorf("the initramfs's /init: %w", err)
	}
	k, err := qemu.FetchKernel(ctx, b.log, b.opts.cacheDir(), a, kernel.Request{})
	if err != nil {
		return nil, "", err
	}
	m := qemu.Machine{Arch: a, Disks: storageDisks(v.Board.Storage)}
	var fsTypes, testModules []string
	for _, img := range v.Images {
		for _, pt := range img.Partitions {
			if f := pt.Filesystem; f != nil && !slices.Contains(fsTypes, f.Type) {
				fsTypes = append(fsTypes, f.Type)
			}
		}
	}
	if len(v.Tests) > 0 {
		rp, err := payload.Compile(p, &v)
		if err != nil {
			return nil, "", err
		}
		for _, s := range rp.Steps {
			m.Watchdog = m.Watchdog || s.Needs.Watchdog
			// In QEMU the runner asks the host for its disk counters.
			m.HostCounters = m.HostCounters || s.AccountIO
			for _, mod := range s.Needs.Modules {
				if !slices.Contains(testModules, mod) {
					testModules = append(testModules, mod)
				}
			}
		}
	}
	initrd := filepath.Join(work, initramfsName)
	err = atomicfile.WriteFunc(initrd, 0o644, func(w io.Writer) error {
		_, err := initramfs.Build(w, initramfs.Boot{Kernel: k, Modules: append(m.Modules(fsTypes...), testModules...), Init: bin})
		return err
	})
	return k, initrd, err
}

// storageDisks are the QEMU disks a board's storage can be: the one its
// kernel name says (vda: virtio, nvme0n1: NVMe, mmcblk0: SD), or all
// three. The initramfs loads the drivers of these alone, as each module
// costs boot time.
func storageDisks(storage string) []qemu.Disk {
	switch {
	case strings.HasPrefix(storage, "vd"):
		return []qemu.Disk{{Interface: qemu.Virtio}}
	case strings.HasPrefix(storage, "nvme"):
		return []qemu.Disk{{Interface: qemu.NVMe}}
	case strings.HasPrefix(storage, "mmcblk"):
		return []qemu.Disk{{Interface: qemu.SD}}
	}
	return []qemu.Disk{{Interface: qemu.Virtio}, {Interface: qemu.NVMe}, {Interface: qemu.SD}}
}

// fdtDirName is the directory of a spec's fdtdir in the image, beside
// the kernel.
const fdtDirName = "dtbs"

// treeFiles lists the regular files under root as boot files under dir,
// in lexical order. Every name must be a word a boot file can hold, and
// anything but directories and regular files is refused: the tree is the
// build system's output, copied as it is.
func treeFiles(root, dir string) ([]bootFile, error) {
	var out []bootFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file or a directory", rel)
		}
		if err := cmdline.Word(rel); err != nil {
			return fmt.Errorf("%s cannot be named in a boot file: %w", rel, err)
		}
		out = append(out, bootFile{name: path.Join(dir, rel), src: p})
		return nil
	})
	if err == nil && len(out) == 0 {
		err = errors.New("holds no files")
	}
	return out, err
}

// inImageExtlinux is the extlinux.conf U-Boot's distro boot reads from
// the image. fdt is its fdt or fdtdir line; without one U-Boot hands the
// kernel its own device tree (QEMU's, on QEMU).
func inImageExtlinux(variant, line, kernelPath, initrdPath string, initrd bool, fdt string) string {
	s := fmt.Sprintf("# fsbench variant %s\ndefault fsbench\ntimeout 0\nlabel fsbench\n    kernel %s\n", variant, kernelPath)
	if initrd {
		s += "    initrd " + initrdPath + "\n"
	}
	if fdt != "" {
		s += "    " + fdt + "\n"
	}
	return s + "    append " + line + "\n"
}

// inImageBootCmd is the U-Boot script boot.scr is compiled from. The
// command line is set in double quotes, inside which hush only reads ",
// \ and $, which no kernel argument holds (cmdline.Word). The initramfs
// is loaded last, so that ${filesize} is its size. dtbPath is the device
// tree to load ("" passes U-Boot's own).
func inImageBootCmd(variant, line string, a arch.Arch, kernelPath, initrdPath string, initrd bool, dtbPath string) string {
	load := "load ${devtype} ${devnum}:${distro_bootpart} "
	s := fmt.Sprintf("# fsbench variant %s\nsetenv bootargs \"%s\"\n", variant, line)
	fdt := "${fdtcontroladdr}"
	if dtbPath != "" {
		s += load + "${fdt_addr_r} " + dtbPath + "\n"
		fdt = "${fdt_addr_r}"
	}
	s += load + "${kernel_addr_r} " + kernelPath + "\n"
	rd := "-"
	if initrd {
		s += load + "${ramdisk_addr_r} " + initrdPath + "\n"
		rd = "${ramdisk_addr_r}:${filesize}"
	}
	switch a {
	case arch.X86_64:
		if initrd {
			return s + "zboot ${kernel_addr_r} 0 ${ramdisk_addr_r} ${filesize}\n"
		}
		return s + "zboot ${kernel_addr_r}\n"
	case arch.ARM:
		return s + "bootz ${kernel_addr_r} " + rd + " " + fdt + "\n"
	default:
		return s + "booti ${kernel_addr_r} " + rd + " " + fdt + "\n"
	}
}

// ubootArch is mkimage's name for an architecture.
func ubootArch(a arch.Arch) string {
	switch a {
	case arch.X86_64:
		return "x86"
	case arch.ARM64:
		return "arm64"
	case arch.RISCV64:
		return "riscv"
	}
	return "arm"
}

// mkimageScript compiles a U-Boot script with u-boot-tools' mkimage,
// stamped with the build's epoch.
func (b *builder) mkimageScript(ctx context.Context, work string, a arch.Arch, variant, cmd string) (string, error) {
	if _, err := exec.LookPath("mkimage"); err != nil {
		return "", fmt.Errorf("boot.scr: mkimage is not installed (Debian's u-boot-tools has it)")
	}
	src, out := filepath.Join(work, "boot.cmd"), filepath.Join(work, "boot.scr")
	if err := os.WriteFile(src, []byte(cmd), 0o644); err != nil {
		return "", err
	}
	lim, err := scratchLimits(work, 0)
	if err != nil {
		return "", err
	}
	argv := []string{"mkimage", "-A", ubootArch(a), "-O", "linux", "-T", "script", "-C", "none", "-n", "fsbench " + variant, "-d", src, out}
	if _, err := runTool(ctx, plainRunner, lim, argv, []string{"SOURCE_DATE_EPOCH=" + strconv.FormatInt(b.opts.Epoch, 10)}); err != nil {
		return "", fmt.Errorf("boot.scr: %w", err)
	}
	return out, nil
}

// bootFile is one file of the boot layer: a copy of src, or data.
type bootFile struct {
	name string
	src  string
	data []byte
}

// writeBootTar writes the boot layer: dir and its subdirectories, then
// the files, owned by root and stamped with the epoch. It returns each
// file's path in the partition, size and digest.
func writeBootTar(w io.Writer, dir string, files []bootFile, epoch int64) ([]BootFileManifest, error) {
	tw := tar.NewWriter(w)
	mtime := time.Unix(epoch, 0)
	base := path.Clean("./" + dir)
	dirs := []string{}
	for _, f := range files {
		for d := path.Dir(path.Join(base, f.name)); d != "." && !slices.Contains(dirs, d); d = path.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	var out []BootFileManifest
	for _, f := range files {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: path.Join(base, f.name), Mode: 0o644, ModTime: mtime, Format: tar.FormatPAX}
		var r io.Reader
		if f.src != "" {
			in, err := os.Open(f.src)
			if err != nil {
				return nil, err
			}
			defer in.Close()
			fi, err := in.Stat()
			if err != nil {
				return nil, err
			}
			hdr.Size, r = fi.Size(), in
		} else {
			hdr.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if r == nil {
			r = bytes.NewReader(f.data)
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(tw, h), r)
		if err != nil {
			return nil, err
		}
		if n != hdr.Size {
			return nil, fmt.Errorf("%s changed while it was copied (%d bytes, then %d)", f.src, hdr.Size, n)
		}
		out = append(out, BootFileManifest{Path: path.Join(dir, f.name), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, tw.Close()
}
