package genimage

import (
	"fmt"

	"github.com/fsbench/fsbench/importer"
)

// flashImage imports a flash image: regions of a NOR or NAND chip without
// a table, every byte nothing writes erased (0xff), offsets and sizes in
// erase blocks; a last partition without a size takes the rest of the
// chip (image-flash.c).
func (c *conv) flashImage(img, h *section) {
	out := &importer.Image{At: img.at, Title: img.title, What: "image " + img.title + " (flash)", Name: c.imageName(img.title), Table: "none", Fill: 0xff}
	for _, o := range h.opts {
		c.s.Errorf(o.at, o.name, "genimage knows no flash option %q", o.name)
	}
	ft, fo := get(img, "flashtype")
	name, _ := ft.plain()
	chip, ok := c.flash[name]
	if fo == nil || !ok {
		c.s.Errorf(img.at, "flashtype", "a flash image needs the flash section its flashtype names (%q); genimage refuses it too", name)
		return
	}
	peb := c.size(chip, "pebsize", 0)
	count, _ := parseCInt(first(valueOf(chip, "numpebs")))
	if v := valueOf(chip, "numpebs"); count == 0 {
		if n, ok := parseSize(first(v)); ok {
			count = n // "8K" erase blocks
		}
	}
	if peb <= 0 || count <= 0 {
		c.s.Errorf(chip.at, "flash "+chip.title, "pebsize and numpebs give the chip's size; genimage refuses a chip without them")
		return
	}
	if peb%512 != 0 {
		c.s.Errorf(chip.at, "pebsize", "fsbench places regions on 512-byte sectors; an erase block of %d bytes is not a multiple of 512", peb)
	}
	out.Align = peb
	chipSize := peb * count
	for _, o := range chip.opts {
		switch o.name {
		case "pebsize", "numpebs":
		case "lebsize", "minimum-io-unit-size", "vid-header-offset", "sub-page-size":
			// UBI's geometry: a layout without UBI images does not use it.
		default:
			c.s.Errorf(o.at, o.name, "genimage knows no flash chip option %q", o.name)
		}
	}
	parts := sub(img, "partition")
	for i, p := range parts {
		part := &importer.Partition{At: p.at, What: "partition " + p.title, Name: uniquePartName(out, p.title), Offset: -1}
		if off := c.size(p, "offset", 0); off > 0 {
			part.Offset = off
		}
		part.Size = c.size(p, "size", 0)
		if part.Size == 0 {
			if i != len(parts)-1 {
				c.s.Errorf(p.at, "size", "only the last partition of a flash image may take the rest of the chip; genimage refuses it too")
			}
			part.Grow = true
			out.Size = chipSize
		}
		if v, o := get(p, "image"); o != nil {
			c.content(o, v, part, peb)
		}
		for _, o := range p.opts {
			switch o.name {
			case "offset", "size", "image":
			default:
				c.s.Errorf(o.at, o.name, "a flash image's partition is a region: %s has no meaning there", o.name)
			}
		}
		out.Partitions = append(out.Partitions, part)
	}
	if s := c.size(img, "size", 0); s > 0 {
		out.Size = s
	}
	if out.Size > chipSize {
		c.s.Errorf(img.at, "size", "the image (%d bytes) is larger than the chip (%d); genimage refuses it too", out.Size, chipSize)
	}
	out.What += fmt.Sprintf(", chip %s: %d erase blocks of %d bytes", name, count, peb)
	c.s.Images = append(c.s.Images, out)
}

func valueOf(sec *section, name string) value {
	v, _ := get(sec, name)
	return v
}
