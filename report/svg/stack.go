package svg

import (
	"math"
	"strconv"
)

// stackSVG draws 100% stacked horizontal bars, one per candidate and
// case, under a heading per case.
func stackSVG(ch *Figure) string {
	sc := ch.Stack
	labelW := 90.0
	for _, r := range sc.Rows {
		labelW = math.Max(labelW, textWidth(r.Label, fontSize)+24)
	}
	plotW := math.Max(400, ChartWidth-12-labelW-marginRight)
	width := math.Max(12+labelW+plotW+marginRight, minWidth(ch))
	var items []legendItem
	for i, c := range sc.Categories {
		items = append(items, legendItem{name: c, color: sc.Colors[i]})
	}
	const rowH, headH = 22.0, 20.0
	head := headerHeight(ch, width)
	legendTop := head + 4
	top := legendTop + legendHeight(items, width-24) + 8
	h := top
	prev := ""
	for i, r := range sc.Rows {
		if i == 0 || r.Group != prev {
			h += headH
		}
		prev = r.Group
		h += rowH
	}
	bottom := h + 4
	height := bottom + 24
	x0 := 12 + labelW

	var d svgDoc
	d.start("stacked", width, height, ch, dataAttr("rows", len(sc.Rows)))
	d.header(ch, width)
	d.legend(items, 12, legendTop, width-24)
	// The scale: percent of each row's total, or the unit's, from 0 to the
	// largest row's total.
	scale := func(row StackRow) float64 { return plotW / float64(max(row.Total, 1)) }
	if sc.Unit != "" {
		most := 0.0
		for _, r := range sc.Rows {
			sum := 0.0
			for _, v := range r.Values {
				sum += v
			}
			most = math.Max(most, sum)
		}
		ticks, dec := niceTicks(0, math.Max(most, 1e-9))
		hi := ticks[len(ticks)-1]
		scale = func(StackRow) float64 { return plotW / hi }
		for _, t := range ticks {
			x := x0 + t/hi*plotW
			d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#dddddd"/>`+"\n", f(x), f(top), f(x), f(bottom))
			d.printf(`<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(x), f(bottom+16), strconv.FormatFloat(t, 'f', dec, 64)+" "+esc(sc.Unit))
		}
	} else {
		for _, t := range []float64{0, 25, 50, 75, 100} {
			x := x0 + t/100*plotW
			d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#dddddd"/>`+"\n", f(x), f(top), f(x), f(bottom))
			d.printf(`<text x="%s" y="%s" text-anchor="middle">%s%%</text>`+"\n", f(x), f(bottom+16), strconv.Itoa(int(t)))
		}
	}
	y := top
	for i, r := range sc.Rows {
		if i == 0 || r.Group != sc.Rows[i-1].Group {
			d.printf(`<text class="case" x="12.00" y="%s" font-weight="bold">%s</text>`+"\n", f(y+14), esc(r.Group))
			y += headH
		}
		d.printf(`<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f(x0-6), f(y+14), esc(r.Label))
		d.printf(`<g class="stackbar" data-group="%s" data-series="%s" data-total="%d">`+"\n", esc(r.Group), esc(r.Label), r.Total)
		x := x0
		for ci, v := range r.Values {
			if v <= 0 {
				continue
			}
			w := v * scale(r)
			label := Num(v)
			d.printf(`<rect class="seg" data-phase="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s · %s: %s %s</title></rect>`+"\n",
				esc(sc.Categories[ci]), f(x), f(y+2), f(w), f(rowH-4), sc.Colors[ci], esc(r.Label), esc(sc.Categories[ci]), label, esc(sc.Unit))
			if w >= 7*float64(len(label))+4 {
				d.printf(`<text x="%s" y="%s" text-anchor="middle" fill="%s">%s</text>`+"\n", f(x+w/2), f(y+15), textOn(sc.Colors[ci]), label)
			}
			x += w
		}
		for ci, n := range r.Counts {
			if n == 0 || r.Total == 0 {
				continue
			}
			w := float64(n) * scale(r)
			d.printf(`<rect class="seg" data-outcome="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s · %s: %d of %d</title></rect>`+"\n",
				esc(sc.Categories[ci]), f(x), f(y+2), f(w), f(rowH-4), sc.Colors[ci], esc(r.Label), esc(sc.Categories[ci]), n, r.Total)
			if w >= 8*float64(len(strconv.Itoa(n)))+4 {
				d.printf(`<text x="%s" y="%s" text-anchor="middle" fill="%s">%d</text>`+"\n", f(x+w/2), f(y+15), textOn(sc.Colors[ci]), n)
			}
			x += w
		}
		d.printf("</g>\n")
		y += rowH
	}
	return d.close()
}

// textOn picks black or white text for a fill colour "#RRGGBB", by its
// luminance.
func textOn(fill string) string {
	if len(fill) != 7 {
		return "#000000"
	}
	v, err := strconv.ParseUint(fill[1:], 16, 32)
	if err != nil {
		return "#000000"
	}
	r, g, b := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	if 0.299*r+0.587*g+0.114*b < 140 {
		return "#ffffff"
	}
	return "#000000"
}
