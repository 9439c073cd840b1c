package spec

import (
	"os"
	"slices"
	"unicode/utf16"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/spec/diag"
)

var partitionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "size"}, {Name: "offset"}, {Name: "grow"}, {Name: "type"},
		{Name: "bootable"}, {Name: "label"}, {Name: "uuid"}, {Name: "logical"},
		{Name: "root"}, {Name: "image"}, {Name: "align"}, {Name: "mbr_type"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "filesystem"}, {Type: "contents"}},
}

func (d *decoder) partition(b *hcl.Block, img *Image, paths *resolver) *Partition {
	before := len(d.diags)
	c := d.content(b.Body, partitionSchema)
	// An unknown argument is most often a misspelt size; do not also
	// report the size as missing.
	wellFormed := !d.diags[before:].HasErrors()
	p := &Partition{Name: b.Labels[0], Offset: -1, Ranges: newRanges(b.DefRange, c.Attributes)}
	if !partNameRegex.MatchString(p.Name) || len(p.Name) > maxNameLen {
		d.errorf(b.LabelRanges[0], "Invalid partition name",
			"A partition name starts with a letter or digit and holds up to 64 letters, digits, '_', '.' and '-': it names files and devices.")
	}
	var sizeOK bool
	p.Size, sizeOK = d.sizeOK(c.Attributes, "size", 0, "Invalid partition size")
	if _, ok := c.Attributes["offset"]; ok {
		p.Offset = d.size(c.Attributes, "offset", 0, "Invalid partition offset")
	}
	if _, ok := c.Attributes["align"]; ok {
		p.Align = d.size(c.Attributes, "align", 0, "Invalid alignment")
		if p.Align <= 0 || p.Align%img.SectorSize != 0 {
			d.errorf(p.Of("align"), "Invalid alignment", "align must be a positive multiple of the %d-byte sector, not %s.", img.SectorSize, units.FormatSize(p.Align))
			p.Align = 0
		}
	}
	p.Grow = d.boolean(c.Attributes, "grow", "Invalid grow")
	p.Type = d.str(c.Attributes, "type", "Invalid partition type")
	p.Bootable = d.boolean(c.Attributes, "bootable", "Invalid bootable flag")
	p.Label = d.str(c.Attributes, "label", "Invalid partition label")
	p.UUID = d.str(c.Attributes, "uuid", "Invalid partition UUID")
	p.Logical = d.boolean(c.Attributes, "logical", "Invalid logical flag")
	p.Root = d.boolean(c.Attributes, "root", "Invalid root flag")
	p.MBRType = d.str(c.Attributes, "mbr_type", "Invalid MBR type")

	_, hasSize := c.Attributes["size"]
	d.partitionImage(c.Attributes, p, img, hasSize, paths)
	d.checkPartition(p, img, hasSize, sizeOK, wellFormed)
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "filesystem":
			if p.Filesystem != nil {
				d.errorf(blk.DefRange, "Duplicate filesystem block", "Partition %q already has a filesystem.", p.Name)
				continue
			}
			p.Filesystem = d.filesystem(blk)
		case "contents":
			if p.Contents != nil {
				d.errorf(blk.DefRange, "Duplicate contents block", "Partition %q already has a contents block; list everything in one.", p.Name)
				continue
			}
			p.Contents = d.contents(blk, paths)
		}
	}
	if p.ImageFile != "" && (p.Filesystem != nil || p.Contents != nil) {
		d.errorf(p.Of("image"), "Conflicting partition content",
			"Partition %q takes a prebuilt image and a filesystem or contents block; the image already is the filesystem. Keep one.", p.Name)
	}
	if p.Contents != nil && p.Filesystem == nil {
		d.errorf(p.Contents.Decl, "Contents without a filesystem", "Partition %q has contents but no filesystem block to put them in.", p.Name)
	}
	if p.Root && p.Filesystem == nil && p.ImageFile == "" {
		d.errorf(p.Of("root"), "Root partition without a filesystem", "The root partition %q needs a filesystem block.", p.Name)
	}
	return p
}

// checkPartition checks what a partition's attributes say together and
// against its image's table.
func (d *decoder) checkPartition(p *Partition, img *Image, hasSize, sizeOK, wellFormed bool) {
	switch {
	case hasSize && p.Grow:
		d.errorf(p.Of("grow"), "Conflicting partition size", "Partition %q sets both size and grow = true; keep one.", p.Name)
	case !hasSize && !p.Grow && p.ImageFile == "" && wellFormed:
		d.errorf(p.Decl, "Missing partition size", "Partition %q needs a size, or grow = true to fill the rest of the image.", p.Name)
	case sizeOK && p.Size <= 0:
		d.errorf(p.Of("size"), "Invalid partition size", "A partition needs a size above zero.")
	}
	if img.Table == "none" {
		d.checkUntabled(p)
		return
	}
	if p.Label == "" {
		p.Label = p.Name
	}
	if n := len(utf16.Encode([]rune(p.Label))); n > 36 {
		d.errorf(p.Of("label"), "Partition label too long",
			"A GPT partition name holds at most 36 UTF-16 code units (a character past U+FFFF, such as an emoji, takes two); %q has %d.", p.Label, n)
	}
	if p.UUID != "" && img.Table == "gpt" && !guidPattern.MatchString(p.UUID) {
		d.errorf(p.Of("uuid"), "Invalid partition UUID", "A GPT partition UUID is a GUID, not %q.", p.UUID)
	}
	if p.UUID != "" && img.Table == "mbr" {
		d.errorf(p.Of("uuid"), "Partition UUID on an MBR table",
			"MBR partitions have no UUID of their own: their PARTUUID is the disk id and the partition number. Set disk_id on the image instead.")
	}
	if img.Table == "gpt" && p.Logical {
		d.errorf(p.Of("logical"), "Logical partition on a GPT table", "Only MBR tables have logical partitions; GPT holds up to 128 partitions without them.")
	}
	if img.Table == "gpt" && p.Bootable && !slices.Contains(img.HybridMBR, p.Name) {
		d.add(diag.Warnf(p.Of("bootable"), "Bootable flag on GPT",
			"On GPT, bootable sets the legacy BIOS bootable attribute (bit 2), which only some firmware reads."))
	}
}

// checkUntabled refuses what only a partition table could record, in
// an image with table = "none": there a partition is a region at an
// offset, which no table describes to the kernel.
func (d *decoder) checkUntabled(p *Partition) {
	for _, name := range []string{"type", "bootable", "label", "uuid", "logical", "mbr_type"} {
		if _, ok := p.Attrs[name]; ok {
			d.errorf(p.Of(name), "Table setting without a table",
				"%s is recorded in a partition table; partition %q lies in an image with table = \"none\", which has none.", name, p.Name)
		}
	}
	if p.Root {
		d.errorf(p.Of("root"), "Root partition without a table",
			"The kernel finds its root partition through a partition table (root=PARTUUID=...), and partition %q lies in an image with table = \"none\". Give the image a table.", p.Name)
	}
}

// partitionImage reads the partition's prebuilt image, whose size gives
// the partition its size when it has none.
func (d *decoder) partitionImage(attrs hcl.Attributes, p *Partition, img *Image, hasSize bool, paths *resolver) {
	var pending bool
	p.ImageFile, pending = d.inputAttr(attrs, "image", "Invalid partition image", "file", p.Of("image"), paths, func(file string, n int64) {
		switch {
		case !hasSize && n == 0:
			d.errorf(p.Of("image"), "Empty partition image",
				"%s is empty, and partition %q takes its size from it: give the partition a size, or the right file.", file, p.Name)
		case !hasSize:
			// The file's size, rounded up to the partition's alignment,
			// as genimage does.
			a := p.Align
			if a <= 0 {
				a = img.Align
			}
			p.Size = (n + a - 1) / a * a
		case n > p.Size:
			d.errorf(p.Of("image"), "Partition image larger than its partition",
				"%s holds %d bytes but partition %q is %d bytes.", file, n, p.Name, p.Size)
		}
	})
	if pending && !hasSize {
		// Planning, the partition takes one alignment unit until the
		// build provides its image.
		p.Size, p.SizePending = max(p.Align, img.Align, units.MiB), true
	}
}

func fileSize(p string) (int64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
