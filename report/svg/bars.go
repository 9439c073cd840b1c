package svg

import (
	"math"
)

// barsSVG draws a grouped bar chart. The value axis starts at 0; a
// whisker below it is cut there (the table gives the whole interval).
func barsSVG(ch *Figure) string {
	bc := ch.Bars
	nS := len(bc.Series)
	l := layoutBars(ch)
	ticks, decimals := niceTicks(0, barsPeak(bc))
	yMax := ticks[len(ticks)-1]
	y := func(v float64) float64 { return l.bottom - v/yMax*plotHeight }

	var d svgDoc
	d.start("bars", l.width, l.height, ch, dataAttr("bars", l.bars))
	d.header(ch, l.width)
	d.legend(l.items, l.x0, l.legendTop, l.plotW)
	label := axisLabel(bc.Unit)
	if bc.YLabel != "" {
		label = bc.YLabel
	}
	d.yAxis(ticks, decimals, y, l.x0, l.x0+l.plotW, label, l.top, l.bottom)
	for gi, g := range bc.Groups {
		gx := l.x0 + float64(gi)*l.groupW + (l.groupW-float64(nS)*l.barW)/2
		for si, c := range bc.Cells[gi] {
			d.barCell(bc, l, g, si, c, gx+float64(si)*l.barW, y, yMax)
		}
		lx := gx + float64(nS)*l.barW/2
		if l.rotateGroups {
			d.printf(`<text class="group" x="%s" y="%s" text-anchor="end" transform="rotate(-30 %s %s)">%s</text>`+"\n",
				f(lx), f(l.bottom+14), f(lx), f(l.bottom+14), esc(g))
		} else {
			d.printf(`<text class="group" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(lx), f(l.bottom+16), esc(g))
		}
	}
	d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", f(l.x0), f(l.bottom), f(l.x0+l.plotW), f(l.bottom))
	if bc.XLabel != "" {
		d.printf(`<text class="axis-label" x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(l.x0+l.plotW/2), f(l.height-6), esc(bc.XLabel))
	}
	return d.close()
}

// barsLayout is where a bar chart's parts go.
type barsLayout struct {
	plotW, groupW, barW, x0   float64
	labelRoom, legendTop, top float64
	bottom, width, height     float64
	rotateGroups              bool
	bars                      int
	items                     []legendItem
}

// layoutBars places a bar chart: groups share the plot's width; a bar is
// at most 48 pixels wide and at least 14, past which the chart grows
// wider than chartWidth.
func layoutBars(ch *Figure) barsLayout {
	bc := ch.Bars
	nS, nG := len(bc.Series), len(bc.Groups)
	l := barsLayout{plotW: ChartWidth - marginLeft - marginRight}
	l.groupW = l.plotW / float64(max(nG, 1))
	l.barW = math.Max(14, math.Min(48, (l.groupW-18)/float64(max(nS, 1))))
	l.groupW = math.Max(l.groupW, float64(nS)*l.barW+18)
	l.plotW = math.Max(l.plotW, float64(nG)*l.groupW)
	for i, s := range bc.Series {
		l.items = append(l.items, legendItem{name: s, color: bc.Colors[i]})
	}
	// Room above the bars for their labels, written upwards.
	l.labelRoom = 14.0
	var longestGroup float64
	for gi, g := range bc.Groups {
		longestGroup = math.Max(longestGroup, textWidth(g, fontSize))
		for _, c := range bc.Cells[gi] {
			l.labelRoom = math.Max(l.labelRoom, textWidth(c.Label, 9)+8)
			if c.Has {
				l.bars++
			}
		}
	}
	l.rotateGroups = longestGroup > l.groupW-6
	bottomRoom := 48.0
	l.x0 = marginLeft
	if l.rotateGroups {
		bottomRoom = 20 + longestGroup*0.5 + 30
		// The first group's label, slanted to the left of its group,
		// must not leave the picture.
		l.x0 = math.Max(marginLeft, longestGroup*0.87-l.groupW/2+8)
	}
	l.width = math.Max(l.x0+l.plotW+marginRight, minWidth(ch))
	l.legendTop = headerHeight(ch, l.width) + 4
	l.top = l.legendTop + legendHeight(l.items, l.plotW) + l.labelRoom
	l.bottom = l.top + plotHeight
	l.height = l.bottom + bottomRoom
	return l
}

// barsPeak is the highest bar or whisker.
func barsPeak(bc *Bars) float64 {
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
	return peak
}

// barCell draws series si's cell of group g at bx: its bar, whisker and
// label, or why it is missing.
func (d *svgDoc) barCell(bc *Bars, l barsLayout, g string, si int, c BarCell, bx float64, y func(float64) float64, yMax float64) {
	cx := bx + l.barW/2
	switch {
	case c.Has:
		h := math.Max(0, c.Value) / yMax * plotHeight
		d.printf(`<rect class="bar" data-group="%s" data-series="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s · %s: %s %s</title></rect>`+"\n",
			esc(g), esc(bc.Series[si]), f(bx+1), f(l.bottom-h), f(l.barW-2), f(h), bc.Colors[si],
			esc(bc.Series[si]), esc(g), Num(c.Value), esc(bc.Unit))
		labelY := l.bottom - h
		if c.HasErr {
			d.errorBar(cx, y(c.ErrLow), y(c.ErrHig), l.bottom, l.top-l.labelRoom+4)
			labelY = math.Min(labelY, math.Max(y(c.ErrHig), l.top-l.labelRoom+4))
		}
		switch {
		case c.Label == "":
		case textWidth(c.Label, 9) <= l.barW:
			d.printf(`<text class="mark" x="%s" y="%s" font-size="9.00" text-anchor="middle">%s</text>`+"\n",
				f(cx), f(labelY-4), esc(c.Label))
		default:
			d.printf(`<text class="mark" x="%s" y="%s" font-size="9.00" transform="rotate(-90 %s %s)">%s</text>`+"\n",
				f(cx+3), f(labelY-4), f(cx+3), f(labelY-4), esc(c.Label))
		}
	case c.Missing != "":
		d.printf(`<text class="missing" x="%s" y="%s" font-size="9.00" fill="#888888" font-style="italic" transform="rotate(-90 %s %s)">%s</text>`+"\n",
			f(cx+3), f(l.bottom-4), f(cx+3), f(l.bottom-4), esc(c.Missing))
	}
}
