package spec

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/spec/diag"
)

var imageSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "table"}, {Name: "size"}, {Name: "align"},
		{Name: "sector_size"}, {Name: "disk_id"},
		{Name: "gpt_location"}, {Name: "gpt_backup"}, {Name: "hybrid_mbr"},
		{Name: "extended_slot"}, {Name: "fill"},
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
	t, tableOK := d.field(c.Attributes, fields.Field{Name: "table", Kind: fields.Enum, Enum: []string{"gpt", "mbr", "none"}, Default: "gpt"}, "Unsupported partition table")
	img.Table = t.(string)
	var sizeOK bool
	img.Size, sizeOK = d.sizeOK(c.Attributes, "size", 0, "Invalid image size")
	img.Align = d.size(c.Attributes, "align", units.MiB, "Invalid alignment")
	img.SectorSize = d.size(c.Attributes, "sector_size", 512, "Invalid sector size")
	img.DiskID = d.str(c.Attributes, "disk_id", "Invalid disk id")
	if sizeOK && img.Size <= 0 {
		d.errorf(img.Of("size"), "Invalid image size", "An image needs a size above zero; leave size out to take it from the partitions.")
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
	img.Fill = d.fillByte(c.Attributes, img)
	if img.DiskID != "" && tableOK {
		switch {
		case img.Table == "none":
			d.errorf(img.Of("disk_id"), "Disk id without a table", "table = \"none\" writes no partition table, so nothing holds a disk id.")
		case img.Table == "gpt" && !guidPattern.MatchString(img.DiskID):
			d.errorf(img.Of("disk_id"), "Invalid disk id", "A GPT disk id is a GUID such as \"9c3b4c5e-8c1f-4a6e-9d0b-2f6f3b0c9a11\", not %q.", img.DiskID)
		case img.Table == "mbr" && !mbrSignature.MatchString(img.DiskID):
			d.errorf(img.Of("disk_id"), "Invalid disk id", "An MBR disk id is a 32-bit signature such as \"0x1234abcd\", not %q.", img.DiskID)
		}
	}
	d.tableLayout(c.Attributes, img)
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "partition":
			img.Partitions = append(img.Partitions, d.partition(blk, img, paths))
		case "raw":
			img.Raw = append(img.Raw, d.raw(blk, paths))
		}
	}
	d.checkPartitionNames(img)
	d.checkHybrid(img)
	if img.Table == "mbr" && img.ExtendedSlot > 0 && !slices.ContainsFunc(img.Partitions, func(p *Partition) bool { return p.Logical }) {
		d.errorf(img.Of("extended_slot"), "Extended slot without logical partitions",
			"extended_slot places the extended partition, which exists only to hold logical partitions, and no partition of image %q is logical = true.", img.Name)
	}
	return img
}

// tableLayout reads where the table's own structures go: the GPT entry
// array, the backup GPT, the hybrid MBR, the MBR's extended slot.
func (d *decoder) tableLayout(attrs hcl.Attributes, img *Image) {
	img.GPTBackup = true
	if b := d.optBool(attrs, "gpt_backup", "Invalid gpt_backup"); b != nil {
		img.GPTBackup = *b
	}
	img.GPTLocation = d.size(attrs, "gpt_location", 0, "Invalid GPT location")
	img.HybridMBR = d.strings(attrs, "hybrid_mbr", "Invalid hybrid MBR")
	if x, ok := d.field(attrs, fields.Field{Name: "extended_slot", Kind: fields.Int}, "Invalid extended slot"); ok {
		img.ExtendedSlot = int(x.(int64))
		if img.ExtendedSlot < 1 || img.ExtendedSlot > 4 {
			d.errorf(img.Of("extended_slot"), "Invalid extended slot", "An MBR has entries 1 to 4; extended_slot is %d.", x.(int64))
			img.ExtendedSlot = 0
		}
	}
	if _, ok := attrs["gpt_location"]; ok && img.GPTLocation <= 0 {
		d.errorf(img.Of("gpt_location"), "Invalid GPT location", "gpt_location is the byte offset of the GPT entry array, above zero.")
	}
	if img.Table == "none" {
		for _, name := range []string{"gpt_location", "gpt_backup", "hybrid_mbr", "extended_slot"} {
			if _, ok := attrs[name]; ok {
				d.errorf(img.Of(name), "Table setting without a table", "%s places a structure of a partition table; this image has table = \"none\".", name)
			}
		}
		return
	}
	if img.Table != "mbr" {
		if _, ok := attrs["extended_slot"]; ok {
			d.errorf(img.Of("extended_slot"), "Extended slot on a GPT table", "Only MBR tables have an extended partition.")
		}
		if !img.GPTBackup {
			d.add(diag.Warnf(img.Of("gpt_backup"), "No backup GPT",
				"Without the backup header and entry array at the end of the image nothing can restore a damaged primary table, and fdisk, sgdisk and parted report the backup missing (they offer to write one, which a flash layout may not want). Keep it unless the boot ROM or the flash size needs the space."))
		}
		return
	}
	for _, name := range []string{"gpt_location", "gpt_backup", "hybrid_mbr"} {
		if _, ok := attrs[name]; ok {
			d.errorf(img.Of(name), "GPT setting on an MBR table", "%s applies to GPT tables; this image has table = \"mbr\".", name)
		}
	}
}

// maxHybrid is how many GPT partitions a hybrid MBR mirrors: its fourth
// entry is the protective one.
const maxHybrid = 3

func (d *decoder) checkHybrid(img *Image) {
	if len(img.HybridMBR) > maxHybrid {
		d.errorf(img.OfElem("hybrid_mbr", maxHybrid), "Too many hybrid MBR entries",
			"A hybrid MBR mirrors up to %d GPT partitions: its fourth entry protects the GPT. hybrid_mbr lists %d.", maxHybrid, len(img.HybridMBR))
	}
	names := make([]string, len(img.Partitions))
	for i, p := range img.Partitions {
		names[i] = p.Name
	}
	seen := map[string]bool{}
	for i, n := range img.HybridMBR {
		switch {
		case !slices.Contains(names, n):
			d.errorf(img.OfElem("hybrid_mbr", i), "Unknown partition in hybrid MBR",
				"Image %q has no partition %q.%s", img.Name, n, diag.DidYouMean(n, names))
		case seen[n]:
			d.errorf(img.OfElem("hybrid_mbr", i), "Duplicate hybrid MBR entry", "Partition %q is listed twice.", n)
		}
		seen[n] = true
	}
	for _, p := range img.Partitions {
		if _, ok := p.Attrs["mbr_type"]; ok && !seen[p.Name] {
			what := "it is not listed in its image's hybrid_mbr"
			if img.Table == "mbr" {
				what = "on an MBR table, type is the MBR id"
			}
			d.errorf(p.Of("mbr_type"), "MBR type without a hybrid MBR entry",
				"mbr_type is the id of a partition's entry in a hybrid MBR, and %s.", what)
		}
	}
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
	Attributes: []hcl.AttributeSchema{{Name: "offset", Required: true}, {Name: "file", Required: true}, {Name: "size"}, {Name: "holes"}},
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
	if a, ok := c.Attributes["holes"]; ok {
		r.Holes = d.holes(a, r)
	}
	var pending bool
	r.File, pending = d.inputAttr(c.Attributes, "file", "Invalid raw region file", "file", r.Of("file"), paths, func(file string, size int64) {
		if r.Size == 0 {
			r.Size = size
		} else if size > r.Size {
			d.errorf(r.Of("file"), "Raw file larger than its region",
				"%s holds %d bytes but the region %q is %d bytes.", file, size, r.Name, r.Size)
		}
	})
	if pending && r.Size == 0 {
		// Planning, the region takes one sector until the build provides
		// its file.
		r.Size, r.SizePending = 512, true
	}
	return r
}

// holes reads a raw region's holes: a list of { offset, size } objects,
// bytes from the start of its file.
func (d *decoder) holes(a *hcl.Attribute, r *RawRegion) []Hole {
	v, ok := d.value(a)
	if !ok {
		return nil
	}
	if !v.Type().IsTupleType() && !v.Type().IsListType() {
		d.errorf(a.Expr.Range(), "Invalid holes", "holes is a list of { offset, size } objects, bytes from the start of the file.")
		return nil
	}
	var out []Hole
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		rng := r.OfElem("holes", i)
		if !e.Type().IsObjectType() || !e.Type().HasAttribute("offset") || !e.Type().HasAttribute("size") || len(e.Type().AttributeTypes()) != 2 {
			d.errorf(rng, "Invalid hole", "A hole is an object { offset = ..., size = ... }, bytes from the start of the file.")
			continue
		}
		var h Hole
		var bad bool
		for _, f := range []struct {
			name string
			dst  *int64
		}{{"offset", &h.Offset}, {"size", &h.Size}} {
			n, err := fields.Field{Name: f.name, Kind: fields.Size}.Convert(e.GetAttr(f.name))
			if err != nil {
				d.errorf(rng, "Invalid hole", "%s: %s.", f.name, err)
				bad = true
				continue
			}
			*f.dst = n.(int64)
		}
		if !bad && (h.Offset < 0 || h.Size <= 0) {
			d.errorf(rng, "Invalid hole", "A hole has an offset of 0 or more and a size above zero.")
			bad = true
		}
		if !bad {
			out = append(out, h)
		}
	}
	return out
}

// inputFile checks a spec-named input and reports its size.
// inputAttr reads the path attribute name of attrs, a "file" or a "dir"
// input, and checks it (inputFile) at rng. Planning, a path whose value
// comes from variables that have none yet is recorded as pending and
// returned as their names ("var.rootfs_tar"), with pending true.
func (d *decoder) inputAttr(attrs hcl.Attributes, name, summary, kind string, rng hcl.Range, paths *resolver, withSize func(p string, size int64)) (p string, pending bool) {
	a, ok := attrs[name]
	if !ok {
		return "", false
	}
	if paths.planning {
		if v, diags := evalExpr(a.Expr, d.ctx); !diags.HasErrors() && !v.IsWhollyKnown() {
			var names []string
			for _, tr := range a.Expr.Variables() {
				if ref := traversalName(tr); ref != "" && !slices.Contains(names, ref) {
					names = append(names, ref)
				}
			}
			p = exprText(a.Expr, d.ctx)
			if p == "" {
				p = "${" + strings.Join(names, "}${") + "}"
			}
			paths.addPending(Pending{At: rng, Path: p, Kind: kind, Variables: names})
			return p, true
		}
	}
	p = d.str(attrs, name, summary)
	if p == "" {
		return "", false
	}
	return p, d.inputFile(rng, p, kind, paths, withSize)
}

// exprText writes a path expression with its unknown parts as written:
// "${var.binaries}/MLO". The parts whose values are known are their
// values. "" for an expression it cannot write.
func exprText(e hcl.Expression, ctx *hcl.EvalContext) string {
	switch x := e.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return "${" + traversalText(x.Traversal) + "}"
	case *hclsyntax.TemplateWrapExpr:
		return exprText(x.Wrapped, ctx)
	case *hclsyntax.TemplateExpr:
		var b strings.Builder
		for _, part := range x.Parts {
			v, diags := part.Value(ctx)
			if !diags.HasErrors() && v.IsWhollyKnown() && v.Type() == cty.String && !v.IsNull() {
				b.WriteString(v.AsString())
				continue
			}
			t := exprText(part, ctx)
			if t == "" {
				return ""
			}
			b.WriteString(t)
		}
		return b.String()
	}
	return ""
}

// traversalText is a traversal as written: var.binaries.
func traversalText(tr hcl.Traversal) string {
	var b strings.Builder
	for i, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		default:
			if i == 0 {
				return ""
			}
			b.WriteString("[...]")
		}
	}
	return b.String()
}

// traversalName is "var.NAME" for a reference to a variable, "" for
// anything else.
func traversalName(tr hcl.Traversal) string {
	if tr.RootName() != "var" || len(tr) < 2 {
		return ""
	}
	if at, ok := tr[1].(hcl.TraverseAttr); ok {
		return "var." + at.Name
	}
	return ""
}

// inputFile checks an input path the spec reads, a "file" or a "dir",
// and gives withSize (when not nil) the file's size. Planning, an input
// that does not exist yet is recorded as pending, withSize is not called,
// and inputFile returns true.
func (d *decoder) inputFile(rng hcl.Range, p, kind string, paths *resolver, withSize func(p string, size int64)) (pending bool) {
	real, err := paths.source(p, kind)
	if errors.Is(err, errPending) {
		paths.addPending(Pending{At: rng, Path: p, Kind: kind, Where: real})
		return true
	}
	if err != nil {
		d.errorf(rng, "Invalid input path", "%s.", err)
		return false
	}
	if withSize != nil {
		if n, err := fileSize(real); err == nil {
			withSize(p, n)
		} else {
			d.errorf(rng, "Invalid input path", "%s: %s.", p, err)
		}
	}
	return false
}

func describeRange(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// fillByte reads the byte written where nothing else lies: "0x00" (the
// default: holes in a sparse image) or "0xff", erased NOR flash.
func (d *decoder) fillByte(attrs hcl.Attributes, img *Image) byte {
	s := d.str(attrs, "fill", "Invalid fill byte")
	switch strings.ToLower(s) {
	case "", "0x00":
		return 0
	case "0xff":
		return 0xff
	}
	d.errorf(img.Of("fill"), "Invalid fill byte",
		"fill is \"0x00\" (holes, as a disk image has) or \"0xff\" (erased NOR flash), not %q.", s)
	return 0
}
