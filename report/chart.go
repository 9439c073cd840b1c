package report

import (
	"math"
	"strconv"
	"strings"
)

// Chart is one figure of a report: the data of exactly one of Bars, Stack
// or Lines, a caption naming its context and tools, and the table of the
// numbers it draws.
type Chart struct {
	// Slug names the chart's file: "A-01-fio-bandwidth".
	Slug    string
	Context *Context
	Title   string
	// Tools are the measuring tools of the data drawn (fio or the
	// built-in engine, sqlite3).
	Tools []string
	// Note says how to read the chart: what a bar and a whisker are.
	Note  string
	Bars  *BarChart
	Stack *StackChart
	Lines *LineChart
	Table *Table
	// inSection: the chart belongs to a Section of its context, which
	// shows it among its text and tables, not in the context's list of
	// charts.
	inSection bool
	// draws are the numbers the chart shows, for the verdict's links:
	// (recipe, test, case, metric or axis), and (recipe, test, "", "")
	// for every chart of a test.
	draws [][4]string
}

// Caption is the chart's context in one line.
func (c *Chart) Caption() string {
	s := c.Context.ID + ": " + c.Context.Line()
	if len(c.Tools) > 0 {
		s += " · " + strings.Join(c.Tools, ", ")
	}
	return s
}

// BarChart is grouped vertical bars: one group per test case (or metric),
// one bar per series (candidate) in each group.
type BarChart struct {
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

// StackChart is stacked horizontal bars: one bar per row, split by
// category. Without a Unit the bars are 100% of the rows' Counts (the
// outcomes of iterations); with one they are the rows' Values on one
// scale (the phases of a boot, in seconds).
type StackChart struct {
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

// LineChart is series of points over a logarithmic x axis.
type LineChart struct {
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

// Table is a table of text cells.
type Table struct {
	Head []string
	Rows [][]string
}

// num formats a measured value for tables and labels: about four
// significant digits, never an exponent, the same on every platform.
func num(v float64) string {
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

// pct formats a percentage with one decimal.
func pct(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "%" }

// pvalue formats a p-value.
func pvalue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'f', 3, 64)
}
