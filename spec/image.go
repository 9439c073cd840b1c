package spec

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/internal/units"
)

var imageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "table"}, {Name: "size", Required: true}, {Name: "align"},
		{Name: "sector_size"}, {Name: "disk_id"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "partition", LabelNames: []string{"name"}},
		{Type: "raw", LabelNames: []string{"name"}},
	},
}

var (
	guidPattern   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	mbrSignature  = regexp.MustCompile(`^0x[0-9a-fA-F]{8}$`)
	partNameRegex = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// maxNameLen bounds the names of boards, images, partitions and tests:
// they name files, directories, charts and kernel configuration comments.
const maxNameLen = 64

func (d *decoder) image(b *hcl.Block, paths *resolver) *Image {
	c := d.content(b.Body, imageSchema)
	img := &Image{Name: b.Labels[0], Ranges: newRanges(b.DefRange, c.Attributes)}
	if !partNameRegex.MatchString(img.Name) || len(img.Name) > maxNameLen {
		d.errorf(b.LabelRanges[0], "Invalid image name",
			"An image name starts with a letter or digit and holds up to 64 letters, digits, '_', '.' and '-': it names the image file.")
	}
	img.Table = d.enum(c.Attributes, "table", "gpt", "Unsupported partition table", "gpt", "mbr")
	var sizeOK bool
	img.Size, sizeOK = d.sizeOK(c.Attributes, "size", 0, "Invalid image size")
	img.Align = d.size(c.Attributes, "align", units.MiB, "Invalid alignment")
	img.SectorSize = d.size(c.Attributes, "sector_size", 512, "Invalid sector size")
	img.DiskID = d.str(c.Attributes, "disk_id", "Invalid disk id")
	if sizeOK && img.Size <= 0 {
		d.errorf(img.Of("size"), "Invalid image size", "An image needs a size above zero.")
	}
	if img.SectorSize != 512 && img.SectorSize != 4096 {
		d.errorf(img.Of("sector_size"), "Invalid sector size", "sector_size must be 512 or 4096 bytes, not %d.", img.SectorSize)
		img.SectorSize = 512
	}
	if img.Size%img.SectorSize != 0 {
		d.errorf(img.Of("size"), "Image size not a whole number of sectors",
			"%s is not a multiple of the %d-byte sector; the image would end in a partial sector.", units.FormatSize(img.Size), img.SectorSize)
	}
	if img.Align <= 0 || img.Align%img.SectorSize != 0 {
		d.errorf(img.Of("align"), "Invalid alignment", "align must be a positive multiple of the %d-byte sector, not %s.", img.SectorSize, units.FormatSize(img.Align))
		img.Align = units.MiB
	}
	if img.DiskID != "" {
		switch {
		case img.Table == "gpt" && !guidPattern.MatchString(img.DiskID):
			d.errorf(img.Of("disk_id"), "Invalid disk id", "A GPT disk id is a GUID such as \"9c3b4c5e-8c1f-4a6e-9d0b-2f6f3b0c9a11\", not %q.", img.DiskID)
		case img.Table == "mbr" && !mbrSignature.MatchString(img.DiskID):
			d.errorf(img.Of("disk_id"), "Invalid disk id", "An MBR disk id is a 32-bit signature such as \"0x1234abcd\", not %q.", img.DiskID)
		}
	}
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "partition":
			img.Partitions = append(img.Partitions, d.partition(blk, img, paths))
		case "raw":
			img.Raw = append(img.Raw, d.raw(blk, paths))
		}
	}
	d.checkPartitionNames(img)
	return img
}

func (d *decoder) checkPartitionNames(img *Image) {
	seen := map[string]*Partition{}
	roots := 0
	for _, p := range img.Partitions {
		if prev, ok := seen[p.Name]; ok {
			d.errorf(p.Decl, "Duplicate partition name",
				"Image %q already has a partition %q (declared at %s).", img.Name, p.Name, describeRange(prev.Decl))
		}
		seen[p.Name] = p
		if p.Root {
			roots++
			if roots > 1 {
				d.errorf(p.Of("root"), "More than one root partition", "Only one partition of an image can hold the root filesystem.")
			}
		}
	}
}

var rawSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "offset", Required: true}, {Name: "file", Required: true}, {Name: "size"}},
}

func (d *decoder) raw(b *hcl.Block, paths *resolver) *RawRegion {
	c := d.content(b.Body, rawSchema)
	r := &RawRegion{Name: b.Labels[0], Ranges: newRanges(b.DefRange, c.Attributes)}
	if !partNameRegex.MatchString(r.Name) || len(r.Name) > maxNameLen {
		d.errorf(b.LabelRanges[0], "Invalid raw region name",
			"A raw region's name starts with a letter or digit and holds up to 64 letters, digits, '_', '.' and '-'.")
	}
	r.Offset = d.size(c.Attributes, "offset", 0, "Invalid raw region offset")
	r.Size = d.size(c.Attributes, "size", 0, "Invalid raw region size")
	r.File = d.str(c.Attributes, "file", "Invalid raw region file")
	if _, ok := c.Attributes["file"]; ok && r.File != "" {
		d.inputFile(r.Of("file"), r.File, "file", paths, func(size int64) {
			if r.Size == 0 {
				r.Size = size
			} else if size > r.Size {
				d.errorf(r.Of("file"), "Raw file larger than its region",
					"%s holds %d bytes but the region %q is %d bytes.", r.File, size, r.Name, r.Size)
			}
		})
	}
	return r
}

// inputFile checks a spec-named input and reports its size.
func (d *decoder) inputFile(rng hcl.Range, p, kind string, paths *resolver, withSize func(int64)) {
	real, err := paths.source(p, kind)
	if err != nil {
		d.errorf(rng, "Invalid input path", "%s.", err)
		return
	}
	if withSize != nil {
		if n, err := fileSize(real); err == nil {
			withSize(n)
		} else {
			d.errorf(rng, "Invalid input path", "%s: %s.", p, err)
		}
	}
}

func describeRange(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}
