// Package wks imports a wic kickstart file (.wks, .wks.in): part lines
// become partitions with wic's sizes, bootloader's --ptable the table and
// its --append the board's kernel arguments. wic sizes a partition from
// its contents (scripts/lib/wic/partition.py, get_rootfs_size: the
// contents' KiB plus --size's shortfall or --extra-filesystem-space, at
// least 10 MiB, times --overhead-factor, 1.3 by default), so the spec's
// size is that expression over variables that give the contents' size,
// which the build system knows (ROOTFS_SIZE, du -ks). It places them as
// wic's PartitionedImage.layout_partitions does: one sector after the
// MBR, 34 after the GPT, each at --offset or aligned to --align KiB
// after the previous one. It never runs wic and never reads an input.
package wks

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// wic's defaults (ksparser.py KickStart, misc.py).
const (
	defaultOverhead   = 1.3
	defaultExtraKiB   = 10 * 1024 // --extra-filesystem-space
	bootddExtraKiB    = 16384     // BOOTDD_EXTRA_SPACE, bootimg-efi and bootimg-pcbios
	gptOverheadSector = 34
)

var flags = map[string]bool{"active": true, "use-label": true, "no-table": true, "hidden": true,
	"use-uuid": true, "no-fstab-update": true, "mbr": true}

// Import reads the kickstart file at file.
func Import(file string) (*importer.Spec, error) {
	cmds, err := readFile(file)
	if err != nil {
		return nil, err
	}
	s := &importer.Spec{Format: "wks", Source: path.Base(file)}
	c := &conv{s: s, table: "mbr"}
	var parts []command
	for _, cmd := range cmds {
		switch cmd.words[0] {
		case "part", "partition":
			parts = append(parts, cmd)
		case "bootloader":
			if err := c.bootloader(cmd); err != nil {
				return nil, err
			}
		default:
			s.Errorf(cmd.at, cmd.words[0], "wic knows no command %q; it refuses the file too", cmd.words[0])
		}
	}
	c.img = &importer.Image{At: importer.Pos{File: s.Source, Line: 1}, What: "the disk wic writes", Name: "disk", Title: "disk", Table: c.table, Align: 512, DiskID: c.diskID}
	if len(parts) > 0 {
		c.img.At = parts[0].at
	}
	for i, cmd := range parts {
		if err := c.part(cmd, i+1); err != nil {
			return nil, err
		}
	}
	s.Images = append(s.Images, c.img)
	return s, nil
}

type conv struct {
	s      *importer.Spec
	img    *importer.Image
	table  string
	hybrid bool
	diskID string
	disk   string // the --ondisk of the first partition
	real   int    // partitions in the table
}

// bootloader reads the table type, the disk id and the kernel's
// arguments.
func (c *conv) bootloader(cmd command) error {
	opts, _, err := options(cmd, nil)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(opts)) {
		v := opts[name]
		switch name {
		case "ptable":
			switch v {
			case "msdos":
				c.table = "mbr"
			case "gpt":
				c.table = "gpt"
			case "gpt-hybrid":
				c.table, c.hybrid = "gpt", true
			default:
				c.s.Errorf(cmd.at, "--ptable", "wic knows msdos, gpt and gpt-hybrid, not %q", v)
			}
		case "append":
			if strings.Contains(v, "${") {
				c.s.Errorf(cmd.at, "--append", "arguments from bitbake variables (%s): give the board's kernel_args the values", v)
				continue
			}
			c.s.Board = &importer.Board{At: cmd.at, KernelArgs: strings.Fields(v)}
		case "timeout":
			c.s.Notef(cmd.at, "--timeout", "fsbench's boot files boot the one entry at once; a menu's timeout has no place there")
		case "diskid":
			c.diskID = v
		case "configfile", "source":
			c.s.Errorf(cmd.at, "--"+name, "fsbench writes the boot files itself (board's bootloader and boot block); wic's bootloader configuration and plugins are not followed")
		default:
			c.s.Errorf(cmd.at, "--"+name, "wic knows no bootloader option --%s", name)
		}
	}
	if c.diskID != "" {
		n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(c.diskID), "0x"), 16, 32)
		switch {
		case c.table == "mbr" && err == nil:
			c.diskID = fmt.Sprintf("0x%08x", n)
		case c.table == "gpt" && importer.IsGUID(c.diskID):
			c.diskID = strings.ToLower(c.diskID)
		default:
			c.s.Errorf(cmd.at, "--diskid", "%q is not a disk id of a %s table", c.diskID, c.table)
			c.diskID = ""
		}
	}
	return nil
}

// sizeKiB reads a wic size: a number of MiB, or with a suffix k, K, M,
// G (ksparser.py sizetype("M")), in KiB.
func sizeKiB(v string) (int64, bool) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n * 1024, n >= 0
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	switch v[len(v)-1] {
	case 'k', 'K':
		return n, true
	case 'M':
		return n * 1024, true
	case 'G':
		return n * 1024 * 1024, true
	}
	return 0, false
}

// offsetBytes reads --offset: KiB by default, or with s/S (sectors), k, K,
// M, G (sizetype("K", True)).
func offsetBytes(v string) (int64, bool) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n * 1024, n >= 0
	}
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:len(v)-1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	switch v[len(v)-1] {
	case 's', 'S':
		return n * 512, true
	case 'k', 'K':
		return n * 1024, true
	case 'M':
		return n << 20, true
	case 'G':
		return n << 30, true
	}
	return 0, false
}
