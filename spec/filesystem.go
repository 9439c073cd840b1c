package spec

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/spec/diag"
)

var filesystemSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type", Required: true}, {Name: "label"}, {Name: "uuid"},
		{Name: "block_size"}, {Name: "features"}, {Name: "journal"},
		{Name: "mount"}, {Name: "mountpoint"}, {Name: "mkfs_args"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "geometry"}, {Type: "tuning"}},
}

var geometrySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "erase_block"}, {Name: "page_size"}},
}

func (d *decoder) filesystem(b *hcl.Block) *Filesystem {
	c := d.content(b.Body, filesystemSchema)
	fs := &Filesystem{Ranges: newRanges(b.DefRange, c.Attributes)}
	fs.Type = d.enum(c.Attributes, "type", "", "Unsupported filesystem type", filesystems.Names()...)
	fs.Label = d.str(c.Attributes, "label", "Invalid filesystem label")
	fs.UUID = d.str(c.Attributes, "uuid", "Invalid filesystem UUID")
	fs.BlockSize = d.size(c.Attributes, "block_size", 0, "Invalid block size")
	fs.Features = d.strings(c.Attributes, "features", "Invalid features")
	fs.Journal = d.optBool(c.Attributes, "journal", "Invalid journal setting")
	fs.Mount = d.strings(c.Attributes, "mount", "Invalid mount options")
	fs.Mountpoint = d.str(c.Attributes, "mountpoint", "Invalid mountpoint")
	fs.MkfsArgs = d.strings(c.Attributes, "mkfs_args", "Invalid mkfs arguments")
	if fs.UUID != "" && !guidPattern.MatchString(fs.UUID) {
		d.errorf(fs.Of("uuid"), "Invalid filesystem UUID", "A filesystem UUID is written as a GUID, such as \"0b5c3a1e-2f4d-4c6b-8a9e-1d2c3b4a5f60\", not %q.", fs.UUID)
	}
	if fs.Mountpoint != "" {
		if err := targetPath(fs.Mountpoint); err != nil {
			d.errorf(fs.Of("mountpoint"), "Invalid mountpoint", "mountpoint %s.", err)
		} else if err := cmdline.Path(fs.Mountpoint); err != nil {
			d.errorf(fs.Of("mountpoint"), "Invalid mountpoint", "mountpoint %q cannot be written into fstab: %v.", fs.Mountpoint, err)
		}
	}
	typ, known := filesystems.Lookup(fs.Type)
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "geometry":
			if fs.Geometry != nil {
				d.errorf(blk.DefRange, "Duplicate geometry block", "A filesystem takes one geometry block.")
				continue
			}
			fs.Geometry = d.geometry(blk)
		case "tuning":
			if fs.Tuning != nil {
				d.errorf(blk.DefRange, "Duplicate tuning block", "A filesystem takes one tuning block.")
				continue
			}
			if known {
				fs.Tuning, fs.TuningAt = d.tuning(blk, typ)
			} else {
				fs.Tuning = map[string]any{}
			}
		}
	}
	return fs
}

func (d *decoder) geometry(b *hcl.Block) *Geometry {
	c := d.content(b.Body, geometrySchema)
	g := &Geometry{Ranges: newRanges(b.DefRange, c.Attributes)}
	pow2 := func(name string) int64 {
		x, _ := d.field(c.Attributes, fields.Field{Name: name, Kind: fields.Size, PowerOfTwo: true,
			Min: fields.Bound(512), Max: fields.Bound(1 << 30)}, "Invalid flash geometry")
		n, _ := x.(int64)
		return n
	}
	g.EraseBlock = pow2("erase_block")
	g.PageSize = pow2("page_size")
	if len(c.Attributes) == 0 {
		d.errorf(b.DefRange, "Empty geometry block", "A geometry block needs erase_block, page_size or both; without them it tunes nothing.")
	}
	if g.EraseBlock > 0 && g.PageSize > 0 && g.PageSize > g.EraseBlock {
		d.errorf(g.Of("page_size"), "Invalid flash geometry", "The page (%d bytes) cannot be larger than the erase block (%d bytes).", g.PageSize, g.EraseBlock)
	}
	return g
}

// tuning reads the typed mkfs knobs of one filesystem type.
func (d *decoder) tuning(b *hcl.Block, typ *filesystems.Type) (map[string]any, Ranges) {
	// JustAttributes finds every name, known or not; but inside a
	// `dynamic "tuning"` block only a schema read gives the expressions
	// their iterator (dynblock passes JustAttributes through unexpanded).
	all, diags := b.Body.JustAttributes()
	d.diags = append(d.diags, diags...)
	known := map[string]fields.Field{}
	var names []string
	schema := &hcl.BodySchema{}
	for _, f := range typ.Tuning {
		known[f.Name] = f
		names = append(names, f.Name)
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: f.Name})
	}
	sort.Strings(names)
	content, _, diags := b.Body.PartialContent(schema)
	d.diags = append(d.diags, diags...)
	attrs := content.Attributes
	for name, a := range all {
		if _, ok := attrs[name]; !ok {
			attrs[name] = a
		}
	}
	out := map[string]any{}
	for name, a := range attrs {
		f, ok := known[name]
		if !ok {
			detail := fmt.Sprintf("%s takes no tuning option %q.%s", typ.Name, name, diag.DidYouMean(name, names))
			if len(names) > 0 {
				detail += " Its options: " + joinNames(names) + "."
			}
			d.errorf(a.NameRange, "Unsupported tuning option", "%s", detail)
			continue
		}
		if x, ok := d.field(attrs, f, "Invalid tuning value"); ok {
			out[name] = x
		}
	}
	return out, newRanges(b.DefRange, attrs)
}

func joinNames(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}
