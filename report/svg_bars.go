package report

import (
	"math"
)

// barsSVG draws a grouped bar chart. The value axis starts at 0; a
// whisker below it is cut there (the table gives the whole interval).
func barsSVG(ch *Chart) string {
	bc := ch.Bars
	nS, nG := len(bc.Series), len(bc.Groups)
	// Groups share the plot's width; a bar is at most 48 pixels wide and
	// at least 14, past which the chart grows wider than chartWidth.
	plotW := chartWidth - marginLeft - marginRight
	groupW := plotW / float64(max(nG, 1))
	barW := math.Min(48, (groupW-18)/float64(max(nS, 1)))
	if barW < 14 {
		barW = 14
	}
	groupW = math.Max(groupW, float64(nS)*barW+18)
	plotW = math.Max(plotW, float64(nG)*groupW)

	var items []legendItem
	for i, s := range bc.Series {
		items = append(items, legendItem{name: s, color: bc.Colors[i]})
	}
	// Room above the bars for their labels, written upwards.
	labelRoom, bars := 14.0, 0
	rotateGroups := false
	var longestGroup float64
	for gi, g := range bc.Groups {
		longestGroup = math.Max(longestGroup, textWidth(g, fontSize))
		for _, c := range bc.Cells[gi] {
			labelRoom = math.Max(labelRoom, textWidth(c.Label, 9)+8)
			if c.Has {
				bars++
			}
		}
	}
	if longestGroup > groupW-6 {
		rotateGroups = true
	}
	bottomRoom := 48.0
	x0 := marginLeft
	if rotateGroups {
		bottomRoom = 20 + longestGroup*0.5 + 30
		// The first group's label, slanted to the left of its group,
		// must not leave the picture.
		x0 = math.Max(marginLeft, longestGroup*0.87-groupW/2+8)
	}
	width := math.Max(x0+plotW+marginRight, minWidth(ch))
	head := headerHeight(ch, width)
	legendTop := head + 4
	top := legendTop + legendHeight(items, plotW) + labelRoom
	bottom := top + plotHeight
	height := bottom + bottomRoom

	peak := 0.0
	for gi := range bc.Groups {
		for _, c := range bc.Cells[gi] {
			if c.Has {
				peak = math.Max(peak, c.Value)
				if c.HasErr {
					peak = math.Max(peak, c.ErrHig)
				}
			}
		}
	}
	ticks, decimals := niceTicks(0, peak)
	yMax := ticks[len(ticks)-1]
	y := func(v float64) float64 { return bottom - v/yMax*plotHeight }

	var d svgDoc
	d.start("bars", width, height, ch, dataAttr("bars", bars))
	d.header(ch, width)
	d.legend(items, x0, legendTop, plotW)
	label := axisLabel(bc.Unit)
	if bc.YLabel != "" {
		label = bc.YLabel
	}
	d.yAxis(ticks, decimals, y, x0, x0+plotW, label, top, bottom)
	for gi, g := range bc.Groups {
		gx := x0 + float64(gi)*groupW + (groupW-float64(nS)*barW)/2
		for si, c := range bc.Cells[gi] {
			bx := gx + float64(si)*barW
			cx := bx + barW/2
			switch {
			case c.Has:
				h := math.Max(0, c.Value) / yMax * plotHeight
				d.printf(`<rect class="bar" data-group="%s" data-series="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s · %s: %s %s</title></rect>`+"\n",
					esc(g), esc(bc.Series[si]), f(bx+1), f(bottom-h), f(barW-2), f(h), bc.Colors[si],
					esc(bc.Series[si]), esc(g), num(c.Value), esc(bc.Unit))
				labelY := bottom - h
				if c.HasErr {
					d.errorBar(cx, y(c.ErrLow), y(c.ErrHig), bottom, top-labelRoom+4)
					labelY = math.Min(labelY, math.Max(y(c.ErrHig), top-labelRoom+4))
				}
				switch {
				case c.Label == "":
				case textWidth(c.Label, 9) <= barW:
					d.printf(`<text class="mark" x="%s" y="%s" font-size="9.00" text-anchor="middle">%s</text>`+"\n",
						f(cx), f(labelY-4), esc(c.Label))
				default:
					d.printf(`<text class="mark" x="%s" y="%s" font-size="9.00" transform="rotate(-90 %s %s)">%s</text>`+"\n",
						f(cx+3), f(labelY-4), f(cx+3), f(labelY-4), esc(c.Label))
				}
			case c.Missing != "":
				d.printf(`<text class="missing" x="%s" y="%s" font-size="9.00" fill="#888888" font-style="italic" transform="rotate(-90 %s %s)">%s</text>`+"\n",
					f(cx+3), f(bottom-4), f(cx+3), f(bottom-4), esc(c.Missing))
			}
		}
		lx := gx + float64(nS)*barW/2
		if rotateGroups {
			d.printf(`<text class="group" x="%s" y="%s" text-anchor="end" transform="rotate(-30 %s %s)">%s</text>`+"\n",
				f(lx), f(bottom+14), f(lx), f(bottom+14), esc(g))
		} else {
			d.printf(`<text class="group" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(lx), f(bottom+16), esc(g))
		}
	}
	d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", f(x0), f(bottom), f(x0+plotW), f(bottom))
	if bc.XLabel != "" {
		d.printf(`<text class="axis-label" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(x0+plotW/2), f(height-6), esc(bc.XLabel))
	}
	return d.close()
}
