package genimage

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// partitions imports an hdimage's partitions in genimage's order: those
// in the table become partitions (on MBR, those from the extended
// partition's index on logical ones), the others raw regions.
func (c *conv) partitions(img, hd *section, out *importer.Image, table string) {
	parts := sub(img, "partition")
	inTable := func(p *section) bool {
		if table == "none" {
			return true // regions at offsets: fsbench's partitions of a table-less image
		}
		v, o := get(p, "in-partition-table")
		b, _ := parseBool(first(v))
		return o == nil || b
	}
	ext := 0
	if v, o := get(hd, "extended-partition"); o != nil {
		n, ok := parseCInt(first(v))
		if !ok || n < 0 || n > 4 {
			c.s.Errorf(o.at, o.name, "the extended partition's index is 0 (automatic) to 4; genimage refuses %s too", v)
		}
		ext = int(n)
	}
	entries := 0
	for _, p := range parts {
		if inTable(p) {
			entries++
		}
	}
	if table == "mbr" && ext == 0 && entries > 4 {
		ext = 4
	}
	n, inExt := 0, false
	pl := newPlacer(table, out)
	for _, p := range parts {
		if !inTable(p) {
			c.outside(p, out, table)
			pl.raw(c.size(p, "offset", 0), c.size(p, "size", 0))
			continue
		}
		n++
		part := c.partition(p, out, table)
		if table == "mbr" && ext > 0 && n >= ext {
			if n == ext {
				inExt = true
			}
			if v, o := get(p, "forced-primary"); o != nil {
				if b, _ := parseBool(first(v)); b {
					inExt = false
				}
			}
			part.Logical = inExt
		}
		pl.partition(part)
	}
	if ext > 0 && table != "mbr" {
		_, o := get(hd, "extended-partition")
		c.s.Errorf(o.at, o.name, "only an MBR has an extended partition; genimage ignores it on a %s table", table)
	}
}

// partition imports a partition of the table.
func (c *conv) partition(p *section, out *importer.Image, table string) *importer.Partition {
	part := &importer.Partition{At: p.at, What: "partition " + p.title, Name: uniquePartName(out, p.title), Offset: -1}
	if table == "gpt" || table == "hybrid" {
		if label := gptName(p.title); label != part.Name {
			part.Label = label
		}
	}
	if off := c.size(p, "offset", 0); off > 0 {
		part.Offset = off
	}
	part.Size = c.size(p, "size", 0)
	part.Align = c.size(p, "align", 0)
	if part.Align == out.Align {
		part.Align = 0
	}
	if part.Align%512 != 0 {
		c.s.Errorf(p.at, "align", "fsbench aligns partitions on 512-byte sectors; %d is not a multiple of 512", part.Align)
	}
	c.partitionType(p, part, out, table)
	c.flags(p, part, table)
	align := part.Align
	if align == 0 {
		align = out.Align
	}
	if v, o := get(p, "image"); o != nil {
		c.content(o, v, part, align)
	} else if part.Size == 0 && !part.Grow {
		c.s.Errorf(p.at, "size", "a partition without an image needs a size; genimage refuses it too")
	}
	out.Partitions = append(out.Partitions, part)
	return part
}

// gptName is the GPT partition name genimage writes for a title: its
// first 36 characters.
func gptName(title string) string {
	r := []rune(title)
	if len(r) > 36 {
		r = r[:36]
	}
	return string(r)
}

// partitionType sets the MBR id or GPT type GUID, genimage's defaults
// included: id 0 on MBR, "L" (Linux) on GPT.
func (c *conv) partitionType(p *section, part *importer.Partition, out *importer.Image, table string) {
	id, idOpt := get(p, "partition-type")
	guid, guidOpt := get(p, "partition-type-uuid")
	var mbrID int64
	if idOpt != nil {
		n, ok := parseCInt(first(id))
		if !ok || n < 0 || n > 0xff {
			c.s.Errorf(idOpt.at, "partition-type", "%s is not an MBR partition id (0 to 0xff)", id)
		}
		mbrID = n
	}
	switch table {
	case "none":
		for _, o := range []*option{idOpt, guidOpt} {
			if o != nil {
				c.s.Errorf(o.at, o.name, "an image without a partition table records no type; genimage refuses it there too")
			}
		}
	case "mbr":
		part.Type = fmt.Sprintf("0x%02x", mbrID)
		if guidOpt != nil {
			c.s.Errorf(guidOpt.at, guidOpt.name, "a GPT type on an MBR table; genimage refuses it too")
		}
	default:
		part.Type = gptType(c.s, guidOpt, guid)
		if table == "hybrid" && mbrID != 0 {
			part.MBRType = fmt.Sprintf("0x%02x", mbrID)
			out.HybridMBR = append(out.HybridMBR, part.Name)
		} else if idOpt != nil && table == "gpt" {
			c.s.Errorf(idOpt.at, idOpt.name, "an MBR id on a GPT table; genimage refuses it too (partition-table-type = \"hybrid\" mirrors it in the MBR)")
		}
	}
}

// gptType resolves partition-type-uuid as genimage does: a GUID, or one
// of its shortcuts (case-insensitive), "L" when absent.
func gptType(s *importer.Spec, o *option, v value) string {
	if o == nil {
		return shortcuts["l"]
	}
	t, _ := v.plain()
	if hasVars(v) {
		s.Errorf(o.at, o.name, "a type written in by a script or the environment (%s): give the type GUID", v)
		return shortcuts["l"]
	}
	if importer.IsGUID(t) {
		return strings.ToLower(t)
	}
	if g, ok := shortcuts[strings.ToLower(t)]; ok {
		return g
	}
	s.Errorf(o.at, o.name, "genimage knows no type shortcut %q: give the type GUID", t)
	return shortcuts["l"]
}

// flags reads a partition's boolean options and its GUID.
func (c *conv) flags(p *section, part *importer.Partition, table string) {
	for _, o := range p.opts {
		v := last(o)
		s, _ := v.plain()
		b, _ := parseBool(s)
		switch o.name {
		case "bootable":
			part.Bootable = b
		case "autoresize":
			if b {
				if part.Size > 0 {
					part.Notes = append(part.Notes, fmt.Sprintf("genimage's autoresize takes at least size = %d bytes; fsbench's grow takes what is left", part.Size))
				}
				part.Grow, part.Size = true, 0
			}
		case "read-only", "hidden", "no-automount":
			if b {
				c.s.Errorf(o.at, o.name, "fsbench sets no GPT attribute bits but the legacy BIOS bootable one; set the bit after the build (sgdisk -A)")
			}
		case "partition-uuid":
			switch {
			case table != "gpt" && table != "hybrid":
				c.s.Errorf(o.at, o.name, "an MBR partition has no GUID of its own (its PARTUUID is the disk signature and its number); genimage 17 and later refuse it too")
			case hasVars(v):
				t := text(c.s, v)
				if len(t) == 1 && t[0].Var != "" {
					part.UUIDVar = t[0].Var
				} else {
					c.s.Errorf(o.at, o.name, "a GUID made of a script's placeholder and text (%s): give the GUID", v)
				}
			case !importer.IsGUID(s):
				c.s.Errorf(o.at, o.name, "%q is not a GUID (a placeholder a script replaces?); genimage refuses it too: give the GUID, or import the configuration the script writes", s)
			default:
				part.UUID = strings.ToLower(s)
			}
		case "imageoffset":
			c.s.Errorf(o.at, o.name, "fsbench writes an image from its start; cut the file first (dd skip=)")
		case "fill":
			if b {
				c.s.Notef(o.at, o.name, "fsbench's image reads as zeros past the partition's data either way")
			}
		case "sparse":
			if !b {
				c.s.Notef(o.at, o.name, "fsbench's image is sparse; it reads the same")
			}
		case "holes":
			c.s.Errorf(o.at, o.name, "holes belong to an image placed outside the table (in-partition-table = false); genimage refuses them in a partition too")
		case "offset", "size", "align", "partition-type", "partition-type-uuid", "image", "in-partition-table", "forced-primary":
		default:
			c.s.Errorf(o.at, o.name, "genimage knows no partition option %q", o.name)
		}
	}
}

// content fills a partition from its image: a vfat or ext image genimage
// would make becomes the filesystem, any other a prebuilt file.
func (c *conv) content(o *option, v value, part *importer.Partition, align int64) {
	name, plain := v.plain()
	child, defined := c.images[name]
	if !plain || hasVars(v) || !defined {
		part.Image = inputPath(c.s, v)
		return
	}
	h := handler(child)
	if h == nil || fsTypes[h.name] == "" {
		kind := "an image without a type"
		if h != nil {
			kind = "a " + h.name + " image"
		}
		c.s.Errorf(o.at, "image", "%s, which fsbench does not make: build it with genimage or the build system and give the spec its file (%s here)", kind, name)
		part.Image = inputPath(c.s, v)
		return
	}
	part.What += fmt.Sprintf(", image %s (%s, line %d)", child.title, h.name, child.at.Line)
	part.Filesystem = c.filesystem(child, h)
	csize := c.size(child, "size", 0)
	switch {
	case part.Grow:
	case part.Size == 0:
		part.Size = (csize + align - 1) / align * align
	case part.Size > csize:
		part.Notes = append(part.Notes, fmt.Sprintf("genimage makes the %s %d bytes and leaves the rest of the partition empty; fsbench's filesystem fills the partition", h.name, csize))
	}
}

// outside imports a partition outside the table: a raw region of its
// image, at its offset (genimage's default is 0).
func (c *conv) outside(p *section, out *importer.Image, table string) {
	v, o := get(p, "image")
	if o == nil {
		c.s.Notef(p.at, "partition "+p.title, "outside the table and without an image, it only keeps genimage from placing anything there; fsbench writes nothing there either")
		return
	}
	r := &importer.Raw{At: p.at, What: "partition " + p.title + " (in-partition-table = false)", Name: uniquePartName(out, p.title), Offset: c.size(p, "offset", 0)}
	if name, ok := v.plain(); ok && !hasVars(v) {
		if child, defined := c.images[name]; defined {
			c.s.Errorf(o.at, "image", "image %s, which genimage makes: fsbench places files outside a table; give the file it makes", child.title)
		}
	}
	r.File = inputPath(c.s, v)
	r.Size = c.size(p, "size", 0)
	if _, ho := get(p, "holes"); ho != nil {
		c.holes(ho, r)
	}
	for _, op := range p.opts {
		switch op.name {
		case "offset", "size", "image", "holes", "in-partition-table", "align":
		case "bootable", "partition-type", "partition-type-uuid", "partition-uuid":
			c.s.Notef(op.at, op.name, "genimage ignores it outside the table")
		default:
			c.s.Errorf(op.at, op.name, "the raw region has no counterpart of %q", op.name)
		}
	}
	out.Raw = append(out.Raw, r)
}

// holes reads genimage's holes: "(start; end)" byte ranges of the file.
func (c *conv) holes(o *option, r *importer.Raw) {
	for _, v := range o.values {
		s, _ := v.plain()
		inner := strings.TrimSpace(s)
		if !strings.HasPrefix(inner, "(") || !strings.HasSuffix(inner, ")") {
			c.s.Errorf(v.at, "holes", "%q is not a hole \"(start; end)\"", s)
			continue
		}
		a, b, ok := strings.Cut(inner[1:len(inner)-1], ";")
		start, ok1 := parseSize(strings.TrimSpace(a))
		end, ok2 := parseSize(strings.TrimSpace(b))
		if !ok || !ok1 || !ok2 || end <= start {
			c.s.Errorf(v.at, "holes", "%q is not a hole \"(start; end)\" with end past start", s)
			continue
		}
		r.Holes = append(r.Holes, [2]int64{start, end - start})
	}
}
