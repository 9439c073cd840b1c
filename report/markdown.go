package report

import (
	"strconv"
	"strings"
)

// ChartsDir is the folder, beside the Markdown summary, that holds the
// charts as SVG files.
const ChartsDir = "charts"

// Markdown renders the report as a Markdown summary whose charts are the
// SVG files in ChartsDir, referenced by relative path.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	figureAt := func(level string) func(ch *Chart) string {
		return func(ch *Chart) string {
			return "\n" + level + " " + mdText(ch.Title) + "\n\n![" + mdText(ch.Title) + "](" + ChartsDir + "/" + ch.Slug + ".svg)\n\n" +
				"*" + mdText(ch.Caption()) + ".* " + mdText(ch.Note) + "\n\n" + mdTable(ch.Table)
		}
	}
	figure := func(ch *Chart) { w(figureAt("###")(ch)) }
	w("# ", mdText(r.Title), "\n\n", mdText(r.SummaryLine()), "\n\n")
	if warn := r.contextWarning(); warn != "" {
		w("> **", mdText(warn), "**\n\n")
	}
	if v := r.Verdict; v != nil && len(v.Rankings) > 0 {
		w("## Verdict\n\n", mdText(verdictIntro), "\n")
		for _, c := range r.Contexts {
			rks, unranked := v.rankingsOf(c)
			if len(rks) == 0 && len(unranked) == 0 {
				continue
			}
			if len(r.Contexts) > 1 {
				w("\n### Context ", c.ID, "\n\n", mdText(c.Line()), "\n")
			}
			if len(v.Requirements) > 0 {
				w("\n", mdText(requirementsLine(v, c)), "\n")
			}
			w("\n", mdTable(v.placesTable(c)), "\n")
			for _, rk := range rks {
				w("- **", mdText(rk.Criterion), "**, ", mdText(rk.Sentence()), " ", mdText(rk.Values()))
				if rk.Chart != "" {
					w(" ([chart](", ChartsDir, "/", rk.Chart, ".svg))")
				}
				w("\n")
			}
			for _, u := range unranked {
				w("- ", mdText(u), "\n")
			}
		}
		w("\n")
	}
	w("## Contents\n\n")
	for _, c := range r.Contexts {
		charts := r.chartsOf(c)
		w("- Context ", c.ID, ": ", strconv.Itoa(len(charts)), " ", plural(len(charts), "chart", "charts"), "\n")
		for _, ch := range r.listedCharts(c) {
			w("  - ", mdText(ch.Title), "\n")
		}
		for _, s := range r.sectionsOf(c) {
			w("  - ", mdText(s.Title), "\n")
			for _, ch := range s.charts() {
				w("    - ", mdText(ch.Title), "\n")
			}
		}
	}
	if r.Across != nil {
		charts := r.chartsOf(r.Across)
		w("- Across contexts: ", strconv.Itoa(len(charts)), " ", plural(len(charts), "chart", "charts"), "\n")
		for _, ch := range charts {
			w("  - ", mdText(ch.Title), "\n")
		}
	}
	w("- Failed and skipped results: ", strconv.Itoa(len(r.Problems)), "\n")
	if r.Comparison != nil {
		n := len(r.Comparison.Regressions())
		w("- Comparison with the baseline: ", strconv.Itoa(n), " ", plural(n, "regression", "regressions"), "\n")
	}
	w("\n## Inputs\n\n", mdTable(r.inputsTable(r.Inputs)), "\n## Contexts\n\n", mdTable(contextsTable(r.Contexts)))

	for _, c := range r.Contexts {
		w("\n## Context ", c.ID, "\n\n", mdText(c.Line()), "\n")
		sections := r.sectionsOf(c)
		if len(r.chartsOf(c)) == 0 && len(sections) == 0 {
			w("\nNo chart: these results hold no metric a chart draws (see summary.csv).\n")
		}
		for _, ch := range r.listedCharts(c) {
			figure(ch)
		}
		for _, s := range sections {
			w(sectionMarkdown(s, figureAt("####")))
		}
	}

	if r.Across != nil {
		w("\n## Across contexts\n\n", mdText(r.acrossText()), "\n\n", mdText(r.Across.Line()), "\n")
		for _, ch := range r.chartsOf(r.Across) {
			figure(ch)
		}
	}
	w("\n## Failed and skipped results\n\n")
	if len(r.Problems) == 0 {
		w("None: every result was measured.\n")
	} else {
		w("These results carry no measurement; they are counted here and left out of every statistic.\n\n", mdTable(r.problemsTable()))
	}

	if c := r.Comparison; c != nil {
		w("\n## Comparison with the baseline\n\n", mdText(c.counts()), "\n\nBaseline files:\n\n", mdTable(r.inputsTable(c.Inputs)))
		if lines := c.contextChangeLines(); len(lines) > 0 {
			w("\nContexts compared (baseline → new):\n\n")
			for _, l := range lines {
				w("- ", mdText(l), "\n")
			}
		}
		if t := c.changesTable(); len(t.Rows) > 0 {
			w("\n", mdTable(t))
		} else {
			w("\nNo metric changed significantly.\n")
		}
	}

	w("\n## How the numbers are computed\n\n")
	for _, p := range methodText {
		w(mdText(p), "\n\n")
	}
	w("The aggregated table of every metric is in summary.csv and summary.json (format ", Format, ").\n")
	return b.String()
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
