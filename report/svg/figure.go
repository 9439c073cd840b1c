package svg

import (
	"math"
	"strconv"
)

// Figure is what a chart draws: its title, a caption (its context in a
// line) and the data of exactly one of Bars, Stack or Lines.
type Figure struct {
	Title, Caption string
	Bars           *Bars
	Stack          *Stack
	Lines          *Lines
}

// SVG renders the figure as a standalone SVG document.
func (c *Figure) SVG() string {
	switch {
	case c.Bars != nil:
		return barsSVG(c)
	case c.Stack != nil:
		return stackSVG(c)
	case c.Lines != nil:
		return linesSVG(c)
	}
	return ""
}

// Bars is grouped vertical bars: one group per test case (or metric),
// one bar per series (candidate) in each group.
type Bars struct {
	Unit string
	// XLabel names what the groups are: "test case", "metric".
	XLabel string
	Groups []string
	Series []string
	Colors []string    // per series
	Cells  [][]BarCell // [group][series]

	// YLabel, when set, names the value axis instead of the quantity of
	// its unit ("write amplification (x)").
	YLabel string
}

// BarCell is one bar. A cell without a value may say why (Missing:
// "failed", "skipped").
type BarCell struct {
	Has            bool
	Value          float64
	HasErr         bool
	ErrLow, ErrHig float64
	// Label is written above the bar: "≈" for a candidate not
	// significantly different from the best, "CV 2.1%" for boot times.
	Label   string
	Missing string
}

// Stack is stacked horizontal bars: one bar per row, split by
// category. Without a Unit the bars are 100% of the rows' Counts (the
// outcomes of iterations); with one they are the rows' Values on one
// scale (the phases of a boot, in seconds).
type Stack struct {
	Axis       string
	Unit       string
	Categories []string
	Colors     []string
	Rows       []StackRow
}

// StackRow is one bar: a candidate in one test case.
type StackRow struct {
	Group, Label string
	Counts       []int // per category
	Total        int
	Values       []float64 // per category, with a Unit
}

// Lines is series of points over a logarithmic x axis.
type Lines struct {
	XUnit, YUnit string
	// XSizes labels the x ticks as sizes ("4KiB") at the points' x values.
	XSizes bool
	YMin   float64
	YMax   float64 // 0: from the data
	Series []LineSeries
}

// LineSeries is one line.
type LineSeries struct {
	Name   string
	Color  string
	Dashed bool
	Points []Point
}

// Point is one point of a line, with an optional error bar in y.
type Point struct {
	X, Y           float64
	HasErr         bool
	ErrLow, ErrHig float64
}

// Num formats a measured value for tables and labels: about four
// significant digits, never an exponent, the same on every platform.
func Num(v float64) string {
	switch a := math.Abs(v); {
	case v == 0:
		return "0"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case a >= 0.001:
		return strconv.FormatFloat(v, 'f', 4-int(math.Floor(math.Log10(a)))-1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
