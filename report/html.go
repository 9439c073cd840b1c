package report

import (
	"html"
	"strconv"
	"strings"
)

// pageStyle is the page's only styling: inline, so that the page needs
// nothing but itself.
const pageStyle = `:root{color-scheme:light}
body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222;background:#fff;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}h3{font-size:1.1em}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
figure{margin:1.5em 0}figure svg{display:block;max-width:100%;height:auto}
figcaption,caption{font-size:.85em;color:#555;margin:.3em 0;text-align:left}
.warn{background:#fff4d6;border:1px solid #e0b84c;padding:.5em}
.rankings li{margin:.3em 0}.values{color:#555;font-size:.9em}
.context{color:#555}
@media print{body{max-width:none;margin:0;padding:0;font-size:10pt;color:#000}
h2{break-after:avoid}figure,table,.rankings li{break-inside:avoid}
a{color:inherit;text-decoration:none}.scroll{overflow:visible}#contents,#contents+ul{display:none}
th{background:#eee}}`

// HTML renders the report as one self-contained page: the charts are
// inline SVG, the style is inline, and nothing needs a script or the
// network.
func (r *Report) HTML() string {
	var b strings.Builder
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	e := html.EscapeString
	figureHTML := func(ch *Chart) string {
		return "<figure id=\"" + e(ch.Slug) + "\">\n" + ch.SVG() + "<figcaption>" + e(ch.Note) + "</figcaption>\n</figure>\n" +
			htmlCaptionedTable(ch.Table, "The numbers of the chart above. "+ch.Caption()+".")
	}
	figure := func(ch *Chart) { w(figureHTML(ch)) }
	chartItems := func(charts []*Chart) {
		for _, ch := range charts {
			w("<li><a href=\"#", e(ch.Slug), "\">", e(ch.Title), "</a></li>\n")
		}
	}
	w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", e(r.Title), "</title>\n<style>\n", pageStyle, "\n</style>\n</head>\n<body>\n")
	w("<h1>", e(r.Title), "</h1>\n<p>", e(r.SummaryLine()), "</p>\n")
	if warn := r.contextWarning(); warn != "" {
		w("<p class=\"warn\">", e(warn), "</p>\n")
	}

	if v := r.Verdict; v != nil && len(v.Rankings) > 0 {
		w("<section id=\"verdict\">\n<h2>Verdict</h2>\n<p>", e(verdictIntro), "</p>\n")
		for _, c := range r.Contexts {
			rks, unranked := v.rankingsOf(c)
			if len(rks) == 0 && len(unranked) == 0 {
				continue
			}
			if len(r.Contexts) > 1 {
				w("<h3>Context ", e(c.ID), "</h3>\n<p class=\"context\">", e(c.Line()), "</p>\n")
			}
			if len(v.Requirements) > 0 {
				w("<p>", e(requirementsLine(v, c)), "</p>\n")
			}
			w(htmlTable(v.placesTable(c)), "<ul class=\"rankings\">\n")
			for _, rk := range rks {
				w("<li><b>", e(rk.Criterion), "</b>, ", e(rk.Sentence()), " <span class=\"values\">", e(rk.Values()), "</span>")
				if rk.Chart != "" {
					w(" <a href=\"#", e(rk.Chart), "\">chart</a>")
				}
				w("</li>\n")
			}
			for _, u := range unranked {
				w("<li>", e(u), "</li>\n")
			}
			w("</ul>\n")
		}
		w("</section>\n")
	}

	w("<h2 id=\"contents\">Contents</h2>\n<ul>\n")
	if r.Verdict != nil && len(r.Verdict.Rankings) > 0 {
		w("<li><a href=\"#verdict\">Verdict</a></li>\n")
	}
	w("<li><a href=\"#inputs\">Inputs</a> and <a href=\"#contexts\">contexts</a></li>\n")
	for _, c := range r.Contexts {
		charts := r.chartsOf(c)
		w("<li><a href=\"#context-", e(c.ID), "\">Context ", e(c.ID), "</a>: ", strconv.Itoa(len(charts)), " ", plural(len(charts), "chart", "charts"), "\n<ul>\n")
		chartItems(r.listedCharts(c))
		for _, s := range r.sectionsOf(c) {
			w("<li><a href=\"#", e(s.ID), "\">", e(s.Title), "</a>")
			if cs := s.charts(); len(cs) > 0 {
				w("\n<ul>\n")
				chartItems(cs)
				w("</ul>")
			}
			w("</li>\n")
		}
		w("</ul></li>\n")
	}
	if r.Across != nil {
		charts := r.chartsOf(r.Across)
		w("<li><a href=\"#across\">Across contexts</a>: ", strconv.Itoa(len(charts)), " ", plural(len(charts), "chart", "charts"), "\n<ul>\n")
		for _, ch := range charts {
			w("<li><a href=\"#", e(ch.Slug), "\">", e(ch.Title), "</a></li>\n")
		}
		w("</ul></li>\n")
	}
	w("<li><a href=\"#problems\">Failed and skipped results</a> (", strconv.Itoa(len(r.Problems)), ")</li>\n")
	if r.Comparison != nil {
		w("<li><a href=\"#comparison\">Comparison with the baseline</a> (", strconv.Itoa(len(r.Comparison.Regressions())), " ",
			plural(len(r.Comparison.Regressions()), "regression", "regressions"), ")</li>\n")
	}
	w("<li><a href=\"#method\">How the numbers are computed</a></li>\n</ul>\n")

	w("<h2 id=\"inputs\">Inputs</h2>\n", htmlTable(r.inputsTable(r.Inputs)))
	w("<h2 id=\"contexts\">Contexts</h2>\n", htmlTable(contextsTable(r.Contexts)))

	for _, c := range r.Contexts {
		w("<section id=\"context-", e(c.ID), "\">\n<h2>Context ", e(c.ID), "</h2>\n<p class=\"context\">", e(c.Line()), "</p>\n")
		sections := r.sectionsOf(c)
		if len(r.chartsOf(c)) == 0 && len(sections) == 0 {
			w("<p>No chart: these results hold no metric a chart draws (see the tables in summary.csv).</p>\n")
		}
		for _, ch := range r.listedCharts(c) {
			figure(ch)
		}
		for _, s := range sections {
			w(sectionHTML(s, figureHTML))
		}
		w("</section>\n")
	}

	if r.Across != nil {
		w("<section id=\"across\">\n<h2>Across contexts</h2>\n<p>", e(r.acrossText()), "</p>\n<p class=\"context\">", e(r.Across.Line()), "</p>\n")
		for _, ch := range r.chartsOf(r.Across) {
			figure(ch)
		}
		w("</section>\n")
	}

	w("<h2 id=\"problems\">Failed and skipped results</h2>\n")
	if len(r.Problems) == 0 {
		w("<p>None: every result was measured.</p>\n")
	} else {
		w("<p>These results carry no measurement; they are counted here and left out of every statistic.</p>\n", htmlTable(r.problemsTable()))
	}

	if c := r.Comparison; c != nil {
		w("<h2 id=\"comparison\">Comparison with the baseline</h2>\n<p>", e(c.counts()), "</p>\n")
		w("<p>Baseline files:</p>\n", htmlTable(r.inputsTable(c.Inputs)))
		if lines := c.contextChangeLines(); len(lines) > 0 {
			w("<p>Contexts compared (baseline → new):</p>\n<ul>\n")
			for _, l := range lines {
				w("<li>", e(l), "</li>\n")
			}
			w("</ul>\n")
		}
		if t := c.changesTable(); len(t.Rows) > 0 {
			w(htmlTable(t))
		} else {
			w("<p>No metric changed significantly.</p>\n")
		}
	}

	w("<h2 id=\"method\">How the numbers are computed</h2>\n")
	for _, p := range methodText {
		w("<p>", e(p), "</p>\n")
	}
	w("<p>The aggregated table of every metric is in summary.csv and summary.json beside this page (format ", Format, ").</p>\n")
	w("</body>\n</html>\n")
	return b.String()
}

func htmlTable(t *Table) string { return htmlCaptionedTable(t, "") }

// htmlCaptionedTable renders t with a caption, when one is given.
func htmlCaptionedTable(t *Table, caption string) string {
	var b strings.Builder
	b.WriteString("<div class=\"scroll\"><table>\n")
	if caption != "" {
		b.WriteString("<caption>" + html.EscapeString(caption) + "</caption>\n")
	}
	b.WriteString("<tr>")
	for _, h := range t.Head {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr>\n")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range row {
			b.WriteString("<td>" + html.EscapeString(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table></div>\n")
	return b.String()
}
