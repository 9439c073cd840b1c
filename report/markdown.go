package report

import (
	"strings"
)

// ChartsDir is the folder, beside the Markdown summary, that holds the
// charts as SVG files.
const ChartsDir = "charts"

// Markdown renders the report as a Markdown summary whose charts are the
// SVG files in ChartsDir, referenced by relative path.
func (r *Report) Markdown() string {
	p := &mdPage{}
	r.render(p)
	return p.String()
}

// mdPage renders the report as Markdown: blocks separated by blank
// lines; a part's id is the heading itself.
type mdPage struct{ strings.Builder }

// block writes one block, after a blank line.
func (p *mdPage) block(parts ...string) {
	if p.Len() > 0 {
		p.WriteString("\n")
	}
	for _, s := range parts {
		p.WriteString(s)
	}
}

func (p *mdPage) title(title, summary, warning string) {
	p.block("# ", mdText(title), "\n")
	p.para(summary)
	if warning != "" {
		p.block("> **", mdText(warning), "**\n")
	}
}

func (p *mdPage) open(string) {}
func (p *mdPage) close()      {}

func (p *mdPage) heading(level int, _, text string) {
	p.block(strings.Repeat("#", level), " ", mdText(text), "\n")
}

func (p *mdPage) para(text string) { p.block(mdText(text), "\n") }
func (p *mdPage) note(text string) { p.para(text) }
func (p *mdPage) warn(text string) { p.block("> **Warning:** ", mdText(text), "\n") }

func (p *mdPage) table(t *Table, caption string) {
	if caption != "" {
		p.block("*", mdText(caption), "*\n")
		p.WriteString("\n" + mdTable(t))
		return
	}
	p.block(mdTable(t))
}

func (p *mdPage) list(items []item) {
	p.block()
	p.items(items, "")
}

func (p *mdPage) items(items []item, indent string) {
	for _, it := range items {
		p.WriteString(indent + "- ")
		if it.lead != "" {
			p.WriteString("**" + mdText(it.lead) + "**")
		}
		p.WriteString(mdText(it.text))
		switch {
		case it.detail != "" && it.lead != "":
			p.WriteString(" " + mdText(it.detail))
		case it.detail != "":
			p.WriteString(": " + mdText(it.detail))
		}
		if it.chart != "" {
			p.WriteString(" ([chart](" + ChartsDir + "/" + it.chart + ".svg))")
		}
		p.WriteString("\n")
		p.items(it.sub, indent+"  ")
	}
}

func (p *mdPage) figure(ch *Chart, level int) {
	p.heading(level, "", ch.Title)
	p.block("![", mdText(ch.Title), "](", ChartsDir, "/", ch.Slug, ".svg)\n")
	p.block("*", mdText(ch.Caption()), ".* ", mdText(ch.Note), "\n")
	p.block(mdTable(ch.Table))
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "|", `\|`)

// mdText escapes text for Markdown: names like "small_files" must not
// turn into emphasis.
func mdText(s string) string { return mdEscaper.Replace(s) }

func mdTable(t *Table) string {
	var b strings.Builder
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdText(strings.ReplaceAll(c, "\n", " ")) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Head)
	b.WriteString("|")
	for range t.Head {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	return b.String()
}
