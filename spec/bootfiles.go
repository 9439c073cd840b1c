package spec

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/spec/diag"
	"github.com/fsbench/fsbench/wire/arch"
)

// BootFiles is a board's `boot` block: what `build` puts into the image
// for the bootloader to read, so that the image boots by itself.
type BootFiles struct {
	// Partition holds the files: "" = the root partition, under /boot.
	Partition   string
	PartitionAt hcl.Range
	// Kernel, DTB and Initramfs are input files. Kernel "" = Debian's
	// kernel for the board's architecture, with fsbench's initramfs
	// (Initramfs must then be ""). FDTDir is a directory of device trees
	// instead of DTB, from which U-Boot loads its ${fdtfile}.
	Kernel, DTB, Initramfs, FDTDir string
	// ConfigTxt are lines for the Raspberry Pi firmware's config.txt
	// (bootloader "rpi"), written before the lines fsbench sets.
	ConfigTxt []string
	Ranges
}

var bootSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "partition"}, {Name: "kernel"}, {Name: "dtb"}, {Name: "initramfs"}, {Name: "fdtdir"}, {Name: "config_txt"}},
}

// bootLoaders that read boot files from a partition: U-Boot's distro
// boot, with extlinux.conf or boot.scr, and the Raspberry Pi firmware,
// with config.txt and cmdline.txt.
var bootLoaders = []string{"extlinux", "uboot", "rpi"}

func (d *decoder) bootFiles(b *hcl.Block, bd *Board, paths *resolver) *BootFiles {
	c := d.content(b.Body, bootSchema)
	bf := &BootFiles{Ranges: newRanges(b.DefRange, c.Attributes)}
	if a, ok := c.Attributes["partition"]; ok {
		bf.PartitionAt = a.Expr.Range()
		bf.Partition = d.partitionRefFor(a, "partition")
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"kernel", &bf.Kernel}, {"dtb", &bf.DTB}, {"initramfs", &bf.Initramfs}} {
		*f.dst, _ = d.inputAttr(c.Attributes, f.name, "Invalid boot file", "file", bf.Of(f.name), paths, nil)
	}
	if _, ok := c.Attributes["fdtdir"]; ok {
		bf.FDTDir, _ = d.inputAttr(c.Attributes, "fdtdir", "Invalid boot file", "dir", bf.Of("fdtdir"), paths, nil)
		if bf.DTB != "" {
			d.errorf(bf.Of("fdtdir"), "Both dtb and fdtdir",
				"dtb names the device tree the bootloader passes; fdtdir a directory it picks one from by its fdtfile variable. Give one of them.")
		}
	}
	if dtb := path.Base(filepath.ToSlash(bf.DTB)); bf.DTB != "" && (cmdline.Word(dtb) != nil || dtb == "." || dtb == "..") {
		d.errorf(bf.Of("dtb"), "Invalid boot file",
			"The device tree is named by its file name (%q) in extlinux.conf, boot.cmd or config.txt, where it must be one word: rename the file.", dtb)
	}
	if _, ok := c.Attributes["kernel"]; !ok && bd.Arch == arch.RISCV64 && bd.Bootloader != "rpi" {
		d.errorf(b.DefRange, "Boot files without a kernel",
			"Without kernel, the image gets Debian's kernel for the board, and Debian 12 builds no riscv64 kernel: give the build system's, kernel = \"${var.binaries}/Image\".")
	}
	if bf.Kernel == "" && bf.Initramfs != "" {
		d.errorf(bf.Of("initramfs"), "Initramfs without a kernel",
			"Without kernel, the image gets Debian's kernel and fsbench's own initramfs, which loads that kernel's modules; an initramfs of your own goes with the kernel it was made for.")
	}
	if !slices.Contains(bootLoaders, bd.Bootloader) {
		d.errorf(b.DefRange, "Boot files without a bootloader that reads them",
			"A boot block puts the kernel and extlinux.conf, boot.scr or the Raspberry Pi's config.txt and cmdline.txt into the image for the bootloader to read: set bootloader = \"extlinux\", \"uboot\" or \"rpi\" (it is %q).", bd.Bootloader)
	}
	d.rpiBootFiles(c.Attributes, bf, bd)
	return bf
}

// rpiBootFiles reads config_txt and checks what the Raspberry Pi
// firmware needs: the board's own kernel (Debian's initramfs is made for
// QEMU's disks), which it loads by config.txt's kernel= line.
func (d *decoder) rpiBootFiles(attrs hcl.Attributes, bf *BootFiles, bd *Board) {
	if _, ok := attrs["config_txt"]; ok {
		bf.ConfigTxt = d.strings(attrs, "config_txt", "Invalid config_txt")
		if bd.Bootloader != "rpi" {
			d.errorf(bf.Of("config_txt"), "config_txt without the Raspberry Pi firmware",
				"config_txt is lines of the Raspberry Pi firmware's config.txt: it needs bootloader = \"rpi\" (it is %q).", bd.Bootloader)
		}
		for i, line := range bf.ConfigTxt {
			if err := cmdline.RPiConfigLine(line); err != nil {
				d.errorf(bf.OfElem("config_txt", i), "Invalid config_txt line", "Line %d, %q: %v.", i+1, line, err)
			}
		}
	}
	if _, ok := attrs["kernel"]; bd.Bootloader == "rpi" && !ok {
		d.errorf(bf.Decl, "Raspberry Pi boot files without a kernel",
			"The Raspberry Pi firmware boots the board's own kernel, which the build system makes: kernel = \"${var.binaries}/Image\" (arm64) or \"${var.binaries}/zImage\" (32-bit), with the board's device tree (dtb) or the firmware's (fdtdir).")
	}
}

// partitionRefFor reads `NAME = partition.PART`.
func (d *decoder) partitionRefFor(a *hcl.Attribute, name string) string {
	tr, diags := hcl.AbsTraversalForExpr(a.Expr)
	if !diags.HasErrors() && len(tr) == 2 && tr.RootName() == "partition" {
		if step, ok := tr[1].(hcl.TraverseAttr); ok {
			return step.Name
		}
	}
	d.errorf(a.Expr.Range(), "Invalid partition reference", "%s takes a partition reference such as partition.boot.", name)
	return ""
}

// checkBootFiles finds the boot files' partition in the image the board
// boots and checks that U-Boot can read it.
func (d *decoder) checkBootFiles(bd *Board, images []*Image) {
	bf := bd.Boot
	if bf == nil || len(images) == 0 {
		return
	}
	img := images[BootImage(images)]
	var p *Partition
	for _, x := range img.Partitions {
		if (bf.Partition == "" && x.Root) || (bf.Partition != "" && x.Name == bf.Partition) {
			p = x
		}
	}
	rng := bf.PartitionAt
	if bf.Partition == "" {
		rng = bf.Decl
	}
	switch {
	case p == nil && bf.Partition == "":
		d.errorf(rng, "No partition for the boot files", "The boot files go to the root partition's /boot unless partition names another, and no partition is root = true.")
	case p == nil:
		names := make([]string, len(img.Partitions))
		for i, x := range img.Partitions {
			names[i] = x.Name
		}
		d.errorf(rng, "Unknown partition", "Image %q, the one the board boots, has no partition %q.%s", img.Name, bf.Partition, diag.DidYouMean(bf.Partition, names))
	case p.Filesystem == nil:
		d.errorf(rng, "Boot files on a partition without a filesystem", "Partition %q has no filesystem block to put the boot files in.", p.Name)
	case bd.Bootloader == "rpi" && p.Filesystem.Type != "vfat":
		d.errorf(rng, "Raspberry Pi boot files off a FAT partition",
			"The Raspberry Pi firmware reads config.txt, cmdline.txt and the kernel from the first partition, which must be vfat; partition %q holds %s: put them on the boot partition with partition = partition.NAME.",
			p.Name, p.Filesystem.Type)
	case bd.Bootloader == "rpi" && p.Contents != nil:
		for _, f := range p.Contents.Files {
			if name := strings.TrimPrefix(f.Path, "/"); name == "config.txt" || name == "cmdline.txt" {
				d.errorf(f.Decl, "A file the boot block writes",
					"The boot block writes %s for the Raspberry Pi firmware, with the variant's bootargs: give config.txt's lines in the boot block's config_txt, and the kernel's arguments in the board's bootargs.", name)
			}
		}
	case !readsBootFiles(p.Filesystem.Type):
		d.errorf(rng, "Boot files on a filesystem U-Boot cannot read",
			"U-Boot reads boot files from %s only, and partition %q holds %s: put them on a partition of one of those types with partition = partition.NAME.",
			strings.Join(bootFileTypes(), ", "), p.Name, p.Filesystem.Type)
	}
}

// readsBootFiles says whether U-Boot reads boot files from a filesystem
// of type fsType.
func readsBootFiles(fsType string) bool {
	t, ok := filesystems.Lookup(fsType)
	return ok && t.BootFiles
}

// bootFileTypes are the types U-Boot reads boot files from, for messages.
func bootFileTypes() []string {
	var out []string
	for _, n := range filesystems.Names() {
		if readsBootFiles(n) {
			out = append(out, n)
		}
	}
	return out
}
