package importer

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/spec/hclfmt"
)

// Write returns s as a formatted spec. Every value goes through
// hclwrite's quoting, and every comment through comment(), so nothing
// imported adds a line or a block of its own.
func Write(s *Spec) ([]byte, error) {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	comment(body, fmt.Sprintf("Imported from %s (%s) by fsbench import. Each block names the line it comes from.", s.Source, s.Format))
	for _, fd := range s.Findings {
		word := "NOT IMPORTED"
		if fd.Note {
			word = "NOTE"
		}
		comment(body, fmt.Sprintf("%s %s: %s: %s", word, fd.At, fd.Option, fd.Text))
	}
	for _, v := range s.Variables {
		body.AppendNewline()
		vb := body.AppendNewBlock("variable", []string{v.Name}).Body()
		vb.SetAttributeValue("description", cty.StringVal(v.Description))
		if v.Default != nil {
			vb.SetAttributeValue("default", cty.StringVal(*v.Default))
		}
	}
	if s.Board != nil {
		writeBoard(body, s.Board)
	}
	for _, img := range s.Images {
		writeImage(body, img)
	}
	out, diags := hclfmt.Format(f.Bytes(), s.Source+".fsb.hcl")
	if diags.HasErrors() {
		return nil, fmt.Errorf("the spec written does not parse: %s", diags.Error())
	}
	return out, nil
}

func writeBoard(body *hclwrite.Body, b *Board) {
	body.AppendNewline()
	comment(body, fmt.Sprintf("%s: the kernel's command line", b.At))
	bb := body.AppendNewBlock("board", []string{"board"}).Body()
	vals := make([]cty.Value, len(b.KernelArgs))
	for i, a := range b.KernelArgs {
		vals[i] = cty.StringVal(a)
	}
	if len(vals) > 0 {
		bb.SetAttributeValue("kernel_args", cty.TupleVal(vals))
	}
}

func writeImage(body *hclwrite.Body, img *Image) {
	body.AppendNewline()
	comment(body, fmt.Sprintf("%s: %s", img.At, img.What))
	b := body.AppendNewBlock("image", []string{img.Name}).Body()
	b.SetAttributeValue("table", cty.StringVal(img.Table))
	if img.SizeVar != "" {
		setText(b, "size", Text{{Var: img.SizeVar}})
	} else if img.Size > 0 {
		setSize(b, "size", img.Size)
	}
	if img.Align > 0 {
		setSize(b, "align", img.Align)
	}
	if img.DiskID != "" {
		b.SetAttributeValue("disk_id", cty.StringVal(img.DiskID))
	}
	if img.GPTLocation > 0 {
		setSize(b, "gpt_location", img.GPTLocation)
	}
	if img.NoGPTBackup {
		b.SetAttributeValue("gpt_backup", cty.False)
	}
	if len(img.HybridMBR) > 0 {
		b.SetAttributeValue("hybrid_mbr", strings2(img.HybridMBR))
	}
	if img.ExtendedSlot > 0 {
		b.SetAttributeValue("extended_slot", cty.NumberIntVal(int64(img.ExtendedSlot)))
	}
	if img.Fill != 0 {
		b.SetAttributeValue("fill", cty.StringVal(fmt.Sprintf("0x%02x", img.Fill)))
	}
	for _, r := range img.Raw {
		writeRaw(b, r)
	}
	for _, p := range img.Partitions {
		writePartition(b, p)
	}
}

func writeRaw(body *hclwrite.Body, r *Raw) {
	body.AppendNewline()
	comment(body, fmt.Sprintf("%s: %s", r.At, r.What))
	b := body.AppendNewBlock("raw", []string{r.Name}).Body()
	setSize(b, "offset", r.Offset)
	if r.Size > 0 {
		setSize(b, "size", r.Size)
	}
	setText(b, "file", r.File)
	if len(r.Holes) > 0 {
		holes := make([]cty.Value, len(r.Holes))
		for i, h := range r.Holes {
			holes[i] = cty.ObjectVal(map[string]cty.Value{"offset": cty.NumberIntVal(h[0]), "size": cty.NumberIntVal(h[1])})
		}
		b.SetAttributeValue("holes", cty.TupleVal(holes))
	}
}

func writePartition(body *hclwrite.Body, p *Partition) {
	body.AppendNewline()
	comment(body, fmt.Sprintf("%s: %s", p.At, p.What))
	for _, n := range p.Notes {
		comment(body, n)
	}
	b := body.AppendNewBlock("partition", []string{p.Name}).Body()
	if p.Offset >= 0 {
		setSize(b, "offset", p.Offset)
	}
	switch {
	case p.Grow:
		b.SetAttributeValue("grow", cty.True)
	case p.SizeExpr != "":
		setExpr(b, "size", p.SizeExpr)
	case p.Size > 0:
		setSize(b, "size", p.Size)
	}
	if p.Align > 0 {
		setSize(b, "align", p.Align)
	}
	for _, kv := range [][2]string{{"type", p.Type}, {"mbr_type", p.MBRType}, {"label", p.Label}, {"uuid", p.UUID}} {
		if kv[1] != "" {
			b.SetAttributeValue(kv[0], cty.StringVal(kv[1]))
		}
	}
	if p.UUIDVar != "" {
		setText(b, "uuid", Text{{Var: p.UUIDVar}})
	}
	if p.Bootable {
		b.SetAttributeValue("bootable", cty.True)
	}
	if p.Logical {
		b.SetAttributeValue("logical", cty.True)
	}
	if !p.Image.IsZero() {
		setText(b, "image", p.Image)
	}
	if p.Filesystem != nil {
		writeFilesystem(b, p.Filesystem)
	}
}

func writeFilesystem(body *hclwrite.Body, fs *Filesystem) {
	b := body.AppendNewBlock("filesystem", nil).Body()
	b.SetAttributeValue("type", cty.StringVal(fs.Type))
	if fs.Label != "" {
		b.SetAttributeValue("label", cty.StringVal(fs.Label))
	}
	if fs.UUID != "" {
		b.SetAttributeValue("uuid", cty.StringVal(fs.UUID))
	}
	if len(fs.Features) > 0 {
		b.SetAttributeValue("features", strings2(fs.Features))
	}
	if fs.NoJournal {
		b.SetAttributeValue("journal", cty.False)
	}
	if fs.Dir.IsZero() && len(fs.Files) == 0 {
		return
	}
	c := body.AppendNewBlock("contents", nil).Body()
	if !fs.Dir.IsZero() {
		setText(c, "dir", fs.Dir)
	}
	for _, f := range fs.Files {
		comment(c, f.At.String())
		setText(c.AppendNewBlock("file", []string{f.Path}).Body(), "source", f.Source)
	}
}

// setSize writes a size as the spec language reads it: "16MiB", or 0.
func setSize(b *hclwrite.Body, name string, n int64) {
	if n == 0 {
		b.SetAttributeValue(name, cty.NumberIntVal(0))
		return
	}
	b.SetAttributeValue(name, cty.StringVal(units.FormatSize(n)))
}

// setText writes t: var.NAME alone, or a quoted template whose literal
// pieces are escaped as hclwrite escapes any string ("${" becomes "$${").
func setText(b *hclwrite.Body, name string, t Text) {
	if len(t) == 1 && t[0].Var != "" {
		b.SetAttributeTraversal(name, hcl.Traversal{hcl.TraverseRoot{Name: "var"}, hcl.TraverseAttr{Name: t[0].Var}})
		return
	}
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOQuote, Bytes: []byte(`"`)}}
	for _, s := range t {
		if s.Var != "" {
			toks = append(toks,
				&hclwrite.Token{Type: hclsyntax.TokenTemplateInterp, Bytes: []byte("${")},
				&hclwrite.Token{Type: hclsyntax.TokenIdent, Bytes: []byte("var." + s.Var)},
				&hclwrite.Token{Type: hclsyntax.TokenTemplateSeqEnd, Bytes: []byte("}")})
			continue
		}
		lit := hclwrite.TokensForValue(cty.StringVal(s.Lit))
		toks = append(toks, lit[1:len(lit)-1]...) // without the quotes
	}
	toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenCQuote, Bytes: []byte(`"`)})
	b.SetAttributeRaw(name, toks)
}

func strings2(ss []string) cty.Value {
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.TupleVal(vals)
}

// comment appends "# text" as one line: control characters of imported
// names become '?', so that a name cannot end the comment.
func comment(b *hclwrite.Body, text string) {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return '?'
		}
		return r
	}, text)
	b.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte("# " + clean + "\n")}})
}

// setExpr writes an expression the importer built of numbers, operators
// and the spec's variables; it panics on one that does not parse, a bug.
func setExpr(b *hclwrite.Body, name, expr string) {
	f, diags := hclwrite.ParseConfig([]byte("x = "+expr+"\n"), "expr", hcl.InitialPos)
	if diags.HasErrors() {
		panic("importer: an expression that does not parse: " + expr)
	}
	b.SetAttributeRaw(name, f.Body().GetAttribute("x").Expr().BuildTokens(nil))
}
