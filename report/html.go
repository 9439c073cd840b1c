package report

import (
	"html"
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
	p := &htmlPage{}
	r.render(p)
	p.WriteString("</body>\n</html>\n")
	return p.String()
}

// htmlPage renders the report as HTML.
type htmlPage struct{ strings.Builder }

func (p *htmlPage) w(parts ...string) {
	for _, s := range parts {
		p.WriteString(s)
	}
}

// hesc escapes text for the page.
var hesc = html.EscapeString

func (p *htmlPage) title(title, summary, warning string) {
	p.w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", hesc(title), "</title>\n<style>\n", pageStyle,
		"\n</style>\n</head>\n<body>\n<h1>", hesc(title), "</h1>\n<p>", hesc(summary), "</p>\n")
	if warning != "" {
		p.warn(warning)
	}
}

func (p *htmlPage) open(id string) { p.w("<section id=\"", hesc(id), "\">\n") }
func (p *htmlPage) close()         { p.w("</section>\n") }

func (p *htmlPage) heading(level int, id, text string) {
	h := "h" + string(rune('0'+level))
	if id != "" {
		p.w("<", h, " id=\"", hesc(id), "\">", hesc(text), "</", h, ">\n")
		return
	}
	p.w("<", h, ">", hesc(text), "</", h, ">\n")
}

func (p *htmlPage) para(text string) { p.w("<p>", hesc(text), "</p>\n") }
func (p *htmlPage) note(text string) { p.w("<p class=\"context\">", hesc(text), "</p>\n") }
func (p *htmlPage) warn(text string) { p.w("<p class=\"warn\">", hesc(text), "</p>\n") }

func (p *htmlPage) table(t *Table, caption string) { p.w(htmlCaptionedTable(t, caption)) }

func (p *htmlPage) list(items []item) {
	class := ""
	for _, it := range items {
		if it.lead != "" {
			class = " class=\"rankings\""
		}
	}
	p.w("<ul", class, ">\n")
	for _, it := range items {
		p.w("<li>")
		if it.lead != "" {
			p.w("<b>", hesc(it.lead), "</b>")
		}
		if it.href != "" {
			p.w("<a href=\"#", hesc(it.href), "\">", hesc(it.text), "</a>")
		} else {
			p.w(hesc(it.text))
		}
		switch {
		case it.detail != "" && it.lead != "":
			p.w(" <span class=\"values\">", hesc(it.detail), "</span>")
		case it.detail != "":
			p.w(": ", hesc(it.detail))
		}
		if it.chart != "" {
			p.w(" <a href=\"#", hesc(it.chart), "\">chart</a>")
		}
		if len(it.sub) > 0 {
			p.w("\n")
			p.list(it.sub)
		}
		p.w("</li>\n")
	}
	p.w("</ul>\n")
}

func (p *htmlPage) figure(ch *Chart, level int) {
	p.w("<figure id=\"", hesc(ch.Slug), "\">\n", ch.SVG(), "<figcaption>", hesc(ch.Note), "</figcaption>\n</figure>\n",
		htmlCaptionedTable(ch.Table, "The numbers of the chart above. "+ch.Caption()+"."))
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
