package svg

import (
	"fmt"
	"strings"
)

// header draws the chart's title and context, wrapped to width, and
// returns the height it took.
func (d *svgDoc) header(ch *Figure, width float64) float64 {
	d.printf(`<text class="title" x="12.00" y="22.00" font-size="%s" font-weight="bold">%s</text>`+"\n", f(titleSize), esc(ch.Title))
	y := 22.0
	for _, line := range wrapCaption(ch.Caption, width-24) {
		y += 16
		d.printf(`<text class="context" x="12.00" y="%s" fill="#555555">%s</text>`+"\n", f(y), esc(line))
	}
	return y + 8
}

// minWidth is the width a chart needs for its title.
func minWidth(ch *Figure) float64 { return textWidth(ch.Title, titleSize)*1.1 + 24 }

// headerHeight is what header returns, without drawing.
func headerHeight(ch *Figure, width float64) float64 {
	return 22 + 16*float64(len(wrapCaption(ch.Caption, width-24))) + 8
}

// wrapCaption splits a caption at its " · " separators into lines that
// fit width.
func wrapCaption(s string, width float64) []string {
	parts := strings.Split(s, " · ")
	var lines []string
	cur := ""
	for _, p := range parts {
		next := p
		if cur != "" {
			next = cur + " · " + p
		}
		if cur != "" && textWidth(next, fontSize) > width {
			lines = append(lines, cur)
			next = p
		}
		cur = next
	}
	return append(lines, cur)
}

// start opens the document; the caller draws the header.
func (d *svgDoc) start(kind string, w, h float64, ch *Figure, extra string) {
	d.printf(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-kind="%s"%s width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="%s">`+"\n",
		kind, extra, f(w), f(h), f(w), f(h), f(fontSize))
	d.printf("<title>%s</title>\n", esc(ch.Title))
	d.printf(`<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", f(w), f(h))
}

func dataAttr(name string, n int) string { return fmt.Sprintf(` data-%s="%d"`, name, n) }
