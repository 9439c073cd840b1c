package report

import (
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/report/svg"
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
	Bars  *svg.Bars
	Stack *svg.Stack
	Lines *svg.Lines
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

// SVG renders the chart as a standalone SVG document.
func (c *Chart) SVG() string {
	return (&svg.Figure{Title: c.Title, Caption: c.Caption(), Bars: c.Bars, Stack: c.Stack, Lines: c.Lines}).SVG()
}

// Caption is the chart's context in one line.
func (c *Chart) Caption() string {
	s := c.Context.ID + ": " + c.Context.Line()
	if len(c.Tools) > 0 {
		s += " · " + strings.Join(c.Tools, ", ")
	}
	return s
}

// Table is a table of text cells.
type Table struct {
	Head []string
	Rows [][]string
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
