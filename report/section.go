package report

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
