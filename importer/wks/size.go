package wks

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// sizeOpts are a part line's size options, in KiB.
type sizeOpts struct {
	size, fixed, extraPart, extraFS int64
	overhead                        float64
}

// readSizes reads --size, --fixed-size, --extra-partition-space,
// --extra-filesystem-space (--extra-space) and --overhead-factor, with
// wic's defaults (ksparser.py: 10 MiB and 1.3, not with --fixed-size).
func (c *conv) readSizes(cmd command, opts map[string]string) sizeOpts {
	var z sizeOpts
	read := func(name string) int64 {
		v, ok := opts[name]
		if !ok {
			return 0
		}
		n, ok := sizeKiB(v)
		if !ok {
			c.s.Errorf(cmd.at, "--"+name, "%q is not a wic size (MiB, or a number with k, K, M or G)", v)
		}
		return n
	}
	z.size, z.fixed, z.extraPart = read("size"), read("fixed-size"), read("extra-partition-space")
	z.extraFS = read("extra-filesystem-space") + read("extra-space")
	if v, ok := opts["overhead-factor"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 1 {
			c.s.Errorf(cmd.at, "--overhead-factor", "%q is not a factor of 1 or more", v)
		}
		z.overhead = f
	}
	if z.fixed == 0 {
		if z.overhead == 0 {
			z.overhead = defaultOverhead
		}
		if z.extraFS == 0 {
			z.extraFS = defaultExtraKiB
		}
	}
	return z
}

// size sets the partition's size and contents from its source plugin.
func (c *conv) size(cmd command, opts map[string]string, fstype, mount string, p *importer.Partition) {
	z := c.readSizes(cmd, opts)
	src := strings.ReplaceAll(opts["source"], "-", "_")
	if fs := fstypes[fstype]; fs != "" && src != "rawcopy" {
		p.Filesystem = &importer.Filesystem{Type: fs}
	}
	switch src {
	case "":
		if z.size == 0 && z.fixed == 0 {
			c.s.Errorf(cmd.at, "--size", "a partition without --source needs --size or --fixed-size; wic refuses it too")
		}
	case "rootfs":
		c.rootfs(cmd, opts, mount, z, p)
	case "bootimg_partition":
		c.variable("boot_dir", "the directory of the boot files wic's bootimg-partition copies: IMAGE_BOOT_FILES of DEPLOY_DIR_IMAGE, as the files' names in the partition")
		p.Filesystem.Dir = importer.Text{{Var: "boot_dir"}}
		p.SizeExpr = wicExpr("boot_kib", "", z)
		c.variable("boot_kib", "du --apparent-size -ks of those boot files, as wic measures them")
	case "bootimg_efi", "bootimg_pcbios", "bootimg_biosplusefi":
		c.s.Errorf(cmd.at, "--source", "wic's %s installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block", src)
		p.SizeExpr = fmt.Sprintf("(var.boot_kib + max(%d - var.boot_kib, %d)) * 1024", z.size, bootddExtraKiB)
		c.variable("boot_kib", "du --apparent-size -ks of the files the boot loader's plugin stages, as wic measures them")
	case "rawcopy":
		c.rawcopy(cmd, opts, p)
	case "empty":
	default:
		c.s.Errorf(cmd.at, "--source", "fsbench has no counterpart of wic's %s plugin", opts["source"])
	}
	defer c.smallJournal(cmd, p)
	switch {
	case z.fixed > 0:
		p.Size, p.SizeExpr = z.fixed*1024, ""
	case p.SizeExpr != "" && z.extraPart > 0:
		p.SizeExpr += fmt.Sprintf(" + %d", z.extraPart*1024)
	case p.SizeExpr == "" && z.size > 0:
		p.Size = (z.size + z.extraPart) * 1024
	}
}

// rootfs fills the partition from a root filesystem directory, sized as
// get_rootfs_size computes it.
func (c *conv) rootfs(cmd command, opts map[string]string, mount string, z sizeOpts, p *importer.Partition) {
	dir, kib, requested := "rootfs", "rootfs_kib", ""
	if v, ok := opts["rootfs-dir"]; ok {
		name := strings.TrimPrefix(strings.ReplaceAll(v, "${IMAGE_ROOTFS}", "rootfs"), "/")
		dir = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, strings.ToLower(name))
		kib = dir + "_kib"
		c.s.Notef(cmd.at, "--rootfs-dir", "the directory %s is the variable %s", v, dir)
	} else if z.size == 0 {
		// Without --size, wic takes bitbake's ROOTFS_SIZE for the
		// image's own root filesystem (partition.py prepare_rootfs).
		requested = "(var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib)"
		c.s.AddVariable(importer.Variable{Name: "rootfs_size_kib", Description: "bitbake's ROOTFS_SIZE in KiB, which wic takes for the root filesystem without --size; 0 when wic runs outside bitbake", Default: ptr("0")})
	}
	c.variable(dir, "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic")
	c.variable(kib, "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it")
	p.Filesystem.Dir = importer.Text{{Var: dir}}
	p.SizeExpr = wicExpr(kib, requested, z)
	for _, o := range []string{"exclude-path", "include-path", "change-directory"} {
		if _, ok := opts[o]; ok {
			c.s.Errorf(cmd.at, "--"+o, "fsbench copies a contents directory whole: give the partition a directory that holds what wic would copy")
		}
	}
}

// wicExpr is get_rootfs_size as an expression: int((A + max(S - A, E))
// * O) KiB, in bytes.
func wicExpr(kib, requested string, z sizeOpts) string {
	if requested == "" {
		requested = strconv.FormatInt(z.size, 10)
	}
	return fmt.Sprintf("floor((var.%s + max(%s - var.%s, %d)) * %s) * 1024", kib, requested, kib, z.extraFS, strconv.FormatFloat(z.overhead, 'f', -1, 64))
}

func ptr(s string) *string { return &s }

// variable declares one of the spec's variables for a path or a size
// the build system knows.
func (c *conv) variable(name, desc string) {
	c.s.AddVariable(importer.Variable{Name: name, Description: desc})
}

// rawcopy writes the file of --sourceparams file=NAME as the partition.
func (c *conv) rawcopy(cmd command, opts map[string]string, p *importer.Partition) {
	file := ""
	for _, kv := range strings.Split(opts["sourceparams"], ",") {
		if k, v, _ := strings.Cut(kv, "="); k == "file" {
			file = v
		}
	}
	if file == "" {
		c.s.Errorf(cmd.at, "--sourceparams", "rawcopy needs file=NAME; wic refuses it too")
		return
	}
	c.variable("deploy_dir", "DEPLOY_DIR_IMAGE, where wic's rawcopy reads its files")
	p.Image = importer.In("deploy_dir", textOf(c, file))
	if _, ok := opts["size"]; !ok {
		c.s.Notef(cmd.at, "--source", "wic sizes the partition to the file's KiB, fsbench to the file's size rounded up to the alignment")
	}
}

// textOf turns a value with ${VAR} references into a Text of the spec's
// variables.
func textOf(c *conv, v string) importer.Text {
	var t importer.Text
	for v != "" {
		i := strings.Index(v, "${")
		j := strings.IndexByte(v[max(i, 0):], '}')
		if i < 0 || j < 0 {
			t = append(t, importer.Seg{Lit: v})
			break
		}
		if i > 0 {
			t = append(t, importer.Seg{Lit: v[:i]})
		}
		name := strings.ToLower(v[i+2 : i+j])
		name = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, name)
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			name = "v_" + name
		}
		c.variable(name, "the bitbake variable "+v[i+2:i+j]+", which wic expands in the file")
		t = append(t, importer.Seg{Var: name})
		v = v[i+j+1:]
	}
	return t
}

// noTable imports a --no-table part: a raw region, at its --offset.
func (c *conv) noTable(cmd command, opts map[string]string) {
	if strings.ReplaceAll(opts["source"], "-", "_") != "rawcopy" {
		c.s.Notef(cmd.at, "--no-table", "a region outside the table without rawcopy writes nothing fsbench would write either")
		return
	}
	off, ok := offsetBytes(opts["offset"])
	if !ok {
		c.s.Errorf(cmd.at, "--no-table", "wic places the region after the previous partition; give it --offset, which fsbench needs")
		return
	}
	p := &importer.Partition{}
	c.rawcopy(cmd, opts, p)
	if p.Image.IsZero() {
		return
	}
	c.img.Raw = append(c.img.Raw, &importer.Raw{At: cmd.at, What: "part " + strings.Join(cmd.words[1:], " "), Name: fmt.Sprintf("raw%d", len(c.img.Raw)+1), Offset: off, File: p.Image})
}

// flags reads the options that are neither sizes nor places.
func (c *conv) flags(cmd command, opts map[string]string, fstype string, p *importer.Partition) {
	if fs := p.Filesystem; fs != nil {
		fs.Label = opts["label"]
		if fs.Label == "" && fs.Type == "vfat" {
			fs.Label = "boot" // mkdosfs -n boot, partition.py
		}
	}
	if c.table == "gpt" {
		p.Label = "primary" // parted mkpart's name for a GPT partition
		if v := opts["part-name"] + opts["label"]; v != "" {
			p.Label = opts["label"]
			if opts["part-name"] != "" {
				p.Label = opts["part-name"]
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(opts)) {
		v := opts[name]
		switch name {
		case "active":
			p.Bootable = true
		case "uuid":
			if c.table != "gpt" || !importer.IsGUID(v) {
				c.s.Errorf(cmd.at, "--uuid", "a partition GUID belongs to a GPT; on MBR the PARTUUID is the disk id and the number")
				continue
			}
			p.UUID = strings.ToLower(v)
		case "fsuuid":
			if p.Filesystem != nil && importer.IsGUID(v) {
				p.Filesystem.UUID = strings.ToLower(v)
			} else {
				c.s.Errorf(cmd.at, "--fsuuid", "fsbench takes a filesystem's UUID as a GUID; give the vfat's volume id with mkfs_args")
			}
		case "use-uuid", "use-label", "no-fstab-update", "fsoptions", "fspassno":
			c.s.Notef(cmd.at, "--"+name, "fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those")
		case "mkfs-extraopts":
			if v != "" {
				c.s.Errorf(cmd.at, "--"+name, "fsbench makes the filesystem with its own options: say them with the filesystem block's typed settings or mkfs_args")
			}
		case "hidden":
			c.s.Errorf(cmd.at, "--hidden", "fsbench sets no GPT attribute bits but the legacy BIOS bootable one; set the bit after the build")
		case "type":
			if v == "logical" {
				c.s.Errorf(cmd.at, "--type", "wic's logical partitions have their EBR two sectors before them; fsbench's one alignment unit before: use --ptable gpt")
			}
		case "size", "fixed-size", "extra-partition-space", "extra-filesystem-space", "extra-space", "overhead-factor",
			"offset", "align", "fstype", "label", "part-name", "part-type", "system-id", "mbr", "source", "sourceparams",
			"ondisk", "ondrive", "rootfs-dir", "exclude-path", "include-path", "change-directory", "no-table":
		default:
			c.s.Errorf(cmd.at, "--"+name, "wic knows no part option --%s", name)
		}
	}
}

// smallJournal leaves the journal out of an ext3 or ext4 filesystem too
// small for one, as mke2fs does on its own for wic (fewer than 2048
// blocks of 4KiB), where fsbench would refuse the journal it cannot make.
func (c *conv) smallJournal(cmd command, p *importer.Partition) {
	fs := p.Filesystem
	if fs == nil || (fs.Type != "ext3" && fs.Type != "ext4") || p.SizeExpr != "" || p.Size == 0 || p.Size >= 2048*4096 {
		return
	}
	fs.NoJournal = true
	c.s.Notef(cmd.at, "--size", "an ext filesystem of %d KiB has no room for a journal; mke2fs leaves it out for wic, the spec says journal = false", p.Size/1024)
}
