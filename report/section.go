package report

import (
	"html"
	"strings"
)

// Section is a part of a context's section that is more than a list of
// charts (write amplification, lifetime, flash geometry): paragraphs,
// warnings, tables, lists and charts, in order. The HTML page and the
// Markdown summary render the same blocks, so that both say the same.
type Section struct {
	// ID anchors the section in the page: "A-write-amplification".
	ID      string
	Title   string
	Context *Context
	Blocks  []Block
}

// Block is one piece of a section: exactly one of Heading, Text, Items,
// Table or Chart, except that Text leads a list of Items and Caption
// heads a Table.
type Block struct {
	Heading string
	Text    string
	// Warn marks Text as a warning, set apart in the page.
	Warn    bool
	Items   []string
	Table   *Table
	Caption string
	Chart   *Chart
}

func (s *Section) heading(h string) { s.Blocks = append(s.Blocks, Block{Heading: h}) }
func (s *Section) text(t string)    { s.Blocks = append(s.Blocks, Block{Text: t}) }
func (s *Section) warn(t string)    { s.Blocks = append(s.Blocks, Block{Text: t, Warn: true}) }
func (s *Section) list(lead string, items []string) {
	s.Blocks = append(s.Blocks, Block{Text: lead, Items: items})
}
func (s *Section) table(t *Table, caption string) {
	s.Blocks = append(s.Blocks, Block{Table: t, Caption: caption})
}
func (s *Section) chart(c *Chart) {
	c.inSection = true
	s.Blocks = append(s.Blocks, Block{Chart: c})
}

// charts are the section's charts, in order.
func (s *Section) charts() []*Chart {
	var out []*Chart
	for _, b := range s.Blocks {
		if b.Chart != nil {
			out = append(out, b.Chart)
		}
	}
	return out
}

// sectionsOf returns the sections of context c.
func (r *Report) sectionsOf(c *Context) []*Section {
	var out []*Section
	for _, s := range r.Sections {
		if s.Context == c {
			out = append(out, s)
		}
	}
	return out
}

// listedCharts are the charts of context c that no section shows.
func (r *Report) listedCharts(c *Context) []*Chart {
	var out []*Chart
	for _, ch := range r.chartsOf(c) {
		if !ch.inSection {
			out = append(out, ch)
		}
	}
	return out
}

// sectionHTML renders a section; figure renders a chart with its table.
func sectionHTML(s *Section, figure func(*Chart) string) string {
	var b strings.Builder
	e := html.EscapeString
	b.WriteString("<section id=\"" + e(s.ID) + "\">\n<h3>" + e(s.Title) + "</h3>\n")
	for _, bl := range s.Blocks {
		switch {
		case bl.Heading != "":
			b.WriteString("<h4>" + e(bl.Heading) + "</h4>\n")
		case bl.Chart != nil:
			b.WriteString(figure(bl.Chart))
		case bl.Table != nil:
			b.WriteString(htmlCaptionedTable(bl.Table, bl.Caption))
		case bl.Items != nil:
			if bl.Text != "" {
				b.WriteString("<p>" + e(bl.Text) + "</p>\n")
			}
			b.WriteString("<ul>\n")
			for _, it := range bl.Items {
				b.WriteString("<li>" + e(it) + "</li>\n")
			}
			b.WriteString("</ul>\n")
		case bl.Warn:
			b.WriteString("<p class=\"warn\">" + e(bl.Text) + "</p>\n")
		default:
			b.WriteString("<p>" + e(bl.Text) + "</p>\n")
		}
	}
	b.WriteString("</section>\n")
	return b.String()
}

// sectionMarkdown renders a section; figure renders a chart with its
// table.
func sectionMarkdown(s *Section, figure func(*Chart) string) string {
	var b strings.Builder
	b.WriteString("\n### " + mdText(s.Title) + "\n")
	for _, bl := range s.Blocks {
		switch {
		case bl.Heading != "":
			b.WriteString("\n#### " + mdText(bl.Heading) + "\n")
		case bl.Chart != nil:
			b.WriteString(figure(bl.Chart))
		case bl.Table != nil:
			b.WriteString("\n")
			if bl.Caption != "" {
				b.WriteString("*" + mdText(bl.Caption) + "*\n\n")
			}
			b.WriteString(mdTable(bl.Table))
		case bl.Items != nil:
			if bl.Text != "" {
				b.WriteString("\n" + mdText(bl.Text) + "\n")
			}
			b.WriteString("\n")
			for _, it := range bl.Items {
				b.WriteString("- " + mdText(it) + "\n")
			}
		case bl.Warn:
			b.WriteString("\n> **Warning:** " + mdText(bl.Text) + "\n")
		default:
			b.WriteString("\n" + mdText(bl.Text) + "\n")
		}
	}
	return b.String()
}
