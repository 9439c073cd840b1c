package report

import "strconv"

// page is what the report is rendered into: the HTML page and the
// Markdown summary. render walks the report once and says what comes,
// in order; each page decides how it looks, so that both say the same.
type page interface {
	// title opens the page: its title, the summary line and a warning
	// ("" for none) about the results' contexts.
	title(title, summary, warning string)
	// open and close bracket a part of the page that links point at;
	// heading is its title at level 2 (a top-level part), 3 or 4.
	open(id string)
	close()
	heading(level int, id, text string)
	para(text string)
	// note is a paragraph set apart as a detail (a context's line).
	note(text string)
	// warn is a paragraph set apart as a warning.
	warn(text string)
	table(t *Table, caption string)
	list(items []item)
	// figure is a chart with its table, under a heading of level.
	figure(ch *Chart, level int)
}

// item is one entry of a list: text, with an emphasised lead before it
// and a detail after it, entries of its own, and links.
type item struct {
	lead, text, detail string
	// href is the id of the part of the page the text links to (the
	// table of contents).
	href string
	// chart is the slug of a chart the entry refers to, linked after it.
	chart string
	sub   []item
}

// render walks the report into p.
func (r *Report) render(p page) {
	p.title(r.Title, r.SummaryLine(), r.contextWarning())
	r.renderVerdict(p)
	r.renderContents(p)
	p.heading(2, "inputs", "Inputs")
	p.table(r.inputsTable(r.Inputs), "")
	p.heading(2, "contexts", "Contexts")
	p.table(contextsTable(r.Contexts), "")
	for _, c := range r.Contexts {
		r.renderContext(p, c)
	}
	if r.Across != nil {
		p.open("across")
		p.heading(2, "", "Across contexts")
		p.para(r.acrossText())
		p.note(r.Across.Line())
		for _, ch := range r.chartsOf(r.Across) {
			p.figure(ch, 3)
		}
		p.close()
	}
	if len(r.FirstStates) > 0 {
		p.heading(2, "first-states", "First bad states")
		p.para(firstStatesText)
		p.table(r.firstStatesTable(), "")
	}
	p.heading(2, "problems", "Failed and skipped results")
	if len(r.Problems) == 0 {
		p.para("None: every result was measured.")
	} else {
		p.para("These results carry no measurement; they are counted here and left out of every statistic.")
		p.table(r.problemsTable(), "")
	}
	r.renderComparison(p)
	p.heading(2, "method", "How the numbers are computed")
	for _, t := range methodText {
		p.para(t)
	}
	p.para("The aggregated table of every metric is in summary.csv and summary.json beside this page (format " + Format + ").")
}

// renderVerdict writes the verdict: per context, the places and each
// criterion's ranking.
func (r *Report) renderVerdict(p page) {
	v := r.Verdict
	if v == nil || len(v.Rankings) == 0 {
		return
	}
	p.open("verdict")
	p.heading(2, "", "Verdict")
	p.para(v.Intro())
	for _, c := range r.Contexts {
		rks, unranked := v.rankingsOf(c)
		if len(rks) == 0 && len(unranked) == 0 {
			continue
		}
		if len(r.Contexts) > 1 {
			p.heading(3, "", "Context "+c.ID)
			p.note(c.Line())
		}
		if note := emulatedNote(c); note != "" {
			p.warn(note)
		}
		if len(v.Requirements) > 0 {
			p.para(requirementsLine(v, c))
		}
		p.table(v.placesTable(c), v.figuresText(c))
		var items []item
		for _, rk := range rks {
			items = append(items, item{lead: rk.Criterion, text: ", " + rk.Sentence(), detail: rk.Values(), chart: rk.Chart})
		}
		for _, u := range unranked {
			items = append(items, item{text: u})
		}
		p.list(items)
	}
	p.close()
}

// renderContents writes the table of contents.
func (r *Report) renderContents(p page) {
	p.heading(2, "contents", "Contents")
	var items []item
	if r.Verdict != nil && len(r.Verdict.Rankings) > 0 {
		items = append(items, item{text: "Verdict", href: "verdict"})
	}
	items = append(items, item{text: "Inputs and contexts", href: "inputs"})
	chartItems := func(charts []*Chart) []item {
		var out []item
		for _, ch := range charts {
			out = append(out, item{text: ch.Title, href: ch.Slug})
		}
		return out
	}
	for _, c := range r.Contexts {
		charts := r.chartsOf(c)
		it := item{text: "Context " + c.ID, href: "context-" + c.ID,
			detail: strconv.Itoa(len(charts)) + " " + plural(len(charts), "chart", "charts"), sub: chartItems(r.listedCharts(c))}
		for _, s := range r.sectionsOf(c) {
			it.sub = append(it.sub, item{text: s.Title, href: s.ID, sub: chartItems(s.charts())})
		}
		items = append(items, it)
	}
	if r.Across != nil {
		charts := r.chartsOf(r.Across)
		items = append(items, item{text: "Across contexts", href: "across",
			detail: strconv.Itoa(len(charts)) + " " + plural(len(charts), "chart", "charts"), sub: chartItems(charts)})
	}
	if n := len(r.FirstStates); n > 0 {
		items = append(items, item{text: "First bad states", href: "first-states", detail: strconv.Itoa(n)})
	}
	items = append(items, item{text: "Failed and skipped results", href: "problems", detail: strconv.Itoa(len(r.Problems))})
	if r.Comparison != nil {
		n := len(r.Comparison.Regressions())
		items = append(items, item{text: "Comparison with the baseline", href: "comparison",
			detail: strconv.Itoa(n) + " " + plural(n, "regression", "regressions")})
	}
	items = append(items, item{text: "How the numbers are computed", href: "method"})
	p.list(items)
}

// renderContext writes context c: its charts, then its sections.
func (r *Report) renderContext(p page, c *Context) {
	p.open("context-" + c.ID)
	p.heading(2, "", "Context "+c.ID)
	p.note(c.Line())
	sections := r.sectionsOf(c)
	if len(r.chartsOf(c)) == 0 && len(sections) == 0 {
		p.para("No chart: these results hold no metric a chart draws (see the tables in summary.csv).")
	}
	for _, ch := range r.listedCharts(c) {
		p.figure(ch, 3)
	}
	for _, s := range sections {
		renderSection(p, s)
	}
	p.close()
}

// renderSection writes a section's blocks.
func renderSection(p page, s *Section) {
	p.open(s.ID)
	p.heading(3, "", s.Title)
	for _, bl := range s.Blocks {
		switch {
		case bl.Heading != "":
			p.heading(4, "", bl.Heading)
		case bl.Chart != nil:
			p.figure(bl.Chart, 4)
		case bl.Table != nil:
			p.table(bl.Table, bl.Caption)
		case bl.Items != nil:
			if bl.Text != "" {
				p.para(bl.Text)
			}
			var items []item
			for _, it := range bl.Items {
				items = append(items, item{text: it})
			}
			p.list(items)
		case bl.Warn:
			p.warn(bl.Text)
		default:
			p.para(bl.Text)
		}
	}
	p.close()
}

// renderComparison writes the comparison with a baseline, if any.
func (r *Report) renderComparison(p page) {
	c := r.Comparison
	if c == nil {
		return
	}
	p.heading(2, "comparison", "Comparison with the baseline")
	p.para(c.counts())
	p.para("Baseline files:")
	p.table(r.inputsTable(c.Inputs), "")
	if lines := c.contextChangeLines(); len(lines) > 0 {
		p.para("Contexts compared (baseline → new):")
		var items []item
		for _, l := range lines {
			items = append(items, item{text: l})
		}
		p.list(items)
	}
	if t := c.changesTable(); len(t.Rows) > 0 {
		p.table(t, "")
	} else {
		p.para("No metric changed significantly.")
	}
}
