package svg

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/units"
)

// linesSVG draws a line chart on a logarithmic x axis: dd rates against block size, latency
// distributions.
func linesSVG(ch *Figure) string {
	lc := ch.Lines
	plotW := ChartWidth - marginLeft - marginRight
	width := math.Max(marginLeft+plotW+marginRight, minWidth(ch))
	var items []legendItem
	var xs []float64
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymax, points := lc.YMax, 0
	for _, s := range lc.Series {
		items = append(items, legendItem{name: s.Name, color: s.Color, dashed: s.Dashed})
		for _, p := range s.Points {
			points++
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			if !slices.Contains(xs, p.X) {
				xs = append(xs, p.X)
			}
			if lc.YMax == 0 {
				ymax = math.Max(ymax, p.Y)
				if p.HasErr {
					ymax = math.Max(ymax, p.ErrHig)
				}
			}
		}
	}
	slices.Sort(xs)
	if points == 0 {
		xmin, xmax = 1, 10
	}
	head := headerHeight(ch, width)
	legendTop := head + 4
	top := legendTop + legendHeight(items, plotW) + 12
	bottom := top + plotHeight
	height := bottom + 44

	yticks, ydec := niceTicks(lc.YMin, ymax)
	ylo, yhi := yticks[0], yticks[len(yticks)-1]
	y := func(v float64) float64 { return bottom - (v-ylo)/(yhi-ylo)*plotHeight }
	x0 := marginLeft
	// The x axis is logarithmic: block sizes double, latencies span
	// decades.
	lo, hi := math.Log10(xmin), math.Log10(xmax)
	xticks, xlabel := xs, func(v float64) string { return units.FormatSize(int64(v)) }
	if !lc.XSizes {
		lo, hi = math.Floor(lo), math.Ceil(hi)
		xticks = nil
		for e := lo; e <= hi; e++ {
			xticks = append(xticks, math.Pow(10, e))
		}
		xlabel = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	if hi <= lo {
		lo, hi = lo-0.5, hi+0.5
	}
	x := func(v float64) float64 { return x0 + 8 + (math.Log10(v)-lo)/(hi-lo)*(plotW-16) }

	var d svgDoc
	d.start("lines", width, height, ch, dataAttr("series", len(lc.Series))+dataAttr("points", points))
	d.header(ch, width)
	d.legend(items, x0, legendTop, plotW)
	d.yAxis(yticks, ydec, y, x0, x0+plotW, axisLabel(lc.YUnit), top, bottom)
	d.printf(`<g class="axis">` + "\n")
	for _, t := range xticks {
		d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#eeeeee"/>`+"\n", f(x(t)), f(top), f(x(t)), f(bottom))
		d.printf(`<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(x(t)), f(bottom+16), esc(xlabel(t)))
	}
	d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", f(x0), f(bottom), f(x0+plotW), f(bottom))
	d.printf(`<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(x0+plotW/2), f(bottom+34), esc(lc.XUnit))
	d.printf("</g>\n")
	for _, s := range lc.Series {
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, f(x(p.X))+","+f(y(p.Y)))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 3"`
		}
		d.printf(`<g class="line" data-series="%s">`+"\n", esc(s.Name))
		d.printf(`<polyline class="series" points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.Color, dash)
		for _, p := range s.Points {
			if p.HasErr {
				d.errorBar(x(p.X), y(p.ErrLow), y(p.ErrHig), bottom, top)
			}
			d.printf(`<circle class="pt" cx="%s" cy="%s" r="3.00" fill="%s"><title>%s: %s %s</title></circle>`+"\n",
				f(x(p.X)), f(y(p.Y)), s.Color, esc(s.Name), Num(p.Y), esc(lc.YUnit))
		}
		d.printf("</g>\n")
	}
	return d.close()
}
