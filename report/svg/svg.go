package svg

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The SVG writer: every number is written with a fixed number of
// decimals and every element in a fixed order, so that the same inputs
// give the same bytes on every machine. Charts use presentation
// attributes only (no CSS, no script), so that they look the same inline
// in the HTML page, as files beside the Markdown, and in any viewer.

// Layout of every chart, in pixels. Charts are drawn chartWidth wide,
// which the page shows at full size on a laptop's screen (a 1280-pixel
// window) and scales down to the width of a printed page; a chart with
// more groups than fit grows wider and scales down the same way.
const (
	ChartWidth  = 960.0
	fontSize    = 12.0
	titleSize   = 16.0
	marginLeft  = 76.0
	marginRight = 24.0
	plotHeight  = 280.0
	legendRowH  = 20.0
)

// svgDoc accumulates one SVG document.
type svgDoc struct {
	b strings.Builder
}

// f formats a coordinate with two decimals, never "-0.00".
func f(x float64) string {
	s := strconv.FormatFloat(math.Round(x*100)/100, 'f', 2, 64)
	if s == "-0.00" {
		return "0.00"
	}
	return s
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func esc(s string) string { return xmlEscaper.Replace(s) }

// textWidth estimates the width of s at size, for layout: sans-serif
// glyphs average a little under 0.6 em.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

func (d *svgDoc) printf(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

func (d *svgDoc) close() string {
	d.b.WriteString("</svg>\n")
	return d.b.String()
}

// legendItem is one entry of a legend.
type legendItem struct {
	name, color string
	dashed      bool
}

// legendHeight is the height the legend takes when wrapped in width.
func legendHeight(items []legendItem, width float64) float64 {
	return float64(len(legendRows(items, width))) * legendRowH
}

// legendRows splits the items into rows that fit width.
func legendRows(items []legendItem, width float64) [][]legendItem {
	var rows [][]legendItem
	var cur []legendItem
	x := 0.0
	for _, it := range items {
		w := 18 + textWidth(it.name, fontSize) + 14
		if len(cur) > 0 && x+w > width {
			rows = append(rows, cur)
			cur, x = nil, 0
		}
		cur = append(cur, it)
		x += w
	}
	if len(cur) > 0 {
		rows = append(rows, cur)
	}
	return rows
}

// legend draws the items from (x, y), wrapped in width.
func (d *svgDoc) legend(items []legendItem, x0, y, width float64) {
	d.printf(`<g class="legend">` + "\n")
	for _, row := range legendRows(items, width) {
		x := x0
		for _, it := range row {
			if it.dashed {
				d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2" stroke-dasharray="4 2"/>`+"\n",
					f(x), f(y+5), f(x+12), f(y+5), it.color)
			} else {
				d.printf(`<rect x="%s" y="%s" width="12.00" height="10.00" fill="%s"/>`+"\n", f(x), f(y), it.color)
			}
			d.printf(`<text x="%s" y="%s">%s</text>`+"\n", f(x+16), f(y+9), esc(it.name))
			x += 18 + textWidth(it.name, fontSize) + 14
		}
		y += legendRowH
	}
	d.printf("</g>\n")
}

// niceTicks returns ticks from 0 (or lo) to at least hi at a round step
// (1, 2, 2.5 or 5 times a power of ten), and the decimals their labels
// need.
// maxTicks bounds an axis; a nice step makes five or six.
const maxTicks = 12

func niceTicks(lo, hi float64) (ticks []float64, decimals int) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := hi/5 - lo/5 // the difference itself may overflow
	if raw <= 0 || math.IsInf(raw, 0) || math.IsNaN(raw) {
		raw = math.Max(math.Abs(hi), 1) / 5
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals = max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow(10, -float64(decimals))-math.Round(step/math.Pow(10, -float64(decimals)))) > 1e-9 {
		decimals++ // 2.5, 0.25, ...
	}
	start := math.Floor(lo/step+1e-9) * step
	// A range the floats cannot step through (values near their end, or
	// a step below the resolution of the values) still ends: six ticks
	// cover any range, and a tick that does not move ends the axis.
	for i := 0; i < maxTicks; i++ {
		t := start + float64(i)*step
		if len(ticks) > 0 && !(t > ticks[len(ticks)-1]) {
			break
		}
		ticks = append(ticks, t)
		if t >= hi-1e-9*step {
			break
		}
	}
	return ticks, decimals
}

// yAxis draws horizontal grid lines and labels for ticks between top and
// bottom, and the axis's label (see axisLabel).
func (d *svgDoc) yAxis(ticks []float64, decimals int, y func(float64) float64, x0, x1 float64, label string, top, bottom float64) {
	d.printf(`<g class="axis">` + "\n")
	for _, t := range ticks {
		d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#dddddd"/>`+"\n", f(x0), f(y(t)), f(x1), f(y(t)))
		d.printf(`<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f(x0-6), f(y(t)+4), strconv.FormatFloat(t, 'f', decimals, 64))
	}
	d.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333333"/>`+"\n", f(x0), f(top), f(x0), f(bottom))
	mid := (top + bottom) / 2
	d.printf(`<text class="axis-label" x="16.00" y="%s" text-anchor="middle" transform="rotate(-90 16.00 %s)">%s</text>`+"\n", f(mid), f(mid), esc(label))
	d.printf("</g>\n")
}

// errorBar draws a whisker at x between the pixel heights of its low and
// high ends. A side the plot's edge (bottom, top) cuts gets no cap, so a
// reader sees it goes on.
func (d *svgDoc) errorBar(x, yLo, yHi, bottom, top float64) {
	capLo, capHi := yLo <= bottom, yHi >= top
	yLo, yHi = math.Min(yLo, bottom), math.Max(yHi, top)
	d.printf(`<path class="err" d="M%s %sV%s`, f(x), f(yLo), f(yHi))
	if capLo {
		d.printf(`M%s %sH%s`, f(x-4), f(yLo), f(x+4))
	}
	if capHi {
		d.printf(`M%s %sH%s`, f(x-4), f(yHi), f(x+4))
	}
	d.printf(`" stroke="#111111" fill="none"/>` + "\n")
}

// axisLabel names the quantity a unit measures, with the unit:
// "bandwidth (MB/s)", "time (ms)".
func axisLabel(unit string) string {
	var q string
	switch {
	case unit == "":
		return "value"
	case unit == "MB/s":
		q = "bandwidth"
	case unit == "s" || unit == "ms" || unit == "us" || unit == "µs":
		q = "time"
	case unit == "s/GB":
		q = "CPU time per GB"
	case unit == "%":
		q = "share"
	case unit == "CV %":
		return "coefficient of variation (%)"
	case unit == "B" || unit == "KiB" || unit == "MiB" || unit == "GiB":
		q = "size"
	case strings.HasSuffix(unit, "/s"):
		q = "rate"
	default:
		return unit
	}
	return q + " (" + unit + ")"
}
