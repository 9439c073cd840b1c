package report

import (
	"slices"
	"strconv"

	"github.com/fsbench/fsbench/report/svg"
)

// barGroup is one group of a bar chart: a metric of one test case.
type barGroup struct {
	label, cas, metric string
}

// barSpec describes a bar chart of one test.
type barSpec struct {
	key, title   string
	recipe, test string
	groups       []barGroup
	// label writes a text above a bar; nil writes "≈" above a candidate
	// not significantly different from the best of its group.
	label func(*Row) string
	// cv draws each candidate's coefficient of variation instead of its
	// mean.
	cv bool
	// split draws groups whose values differ by more than ten times in
	// charts of their own, so that the small ones stay readable (fio's
	// 4KiB cases next to its 4MiB ones).
	split bool
}

const (
	noteBars = "Bars: mean over the iterations; whiskers: 95% confidence interval of the mean (Student t), " +
		"drawn for bars of two iterations or more. ≈ above a bar: not significantly different from the best " +
		"bar of its group (Welch's t-test, 5%)."
	noteCV = "Bars: coefficient of variation (sample standard deviation / mean) over the iterations of each " +
		"candidate, in percent; it needs at least two iterations."
)

// barCharts builds the chart of spec, or with spec.split one chart per
// order of magnitude of its groups, largest first.
func (v *view) barCharts(spec barSpec) []*Chart {
	if !spec.split {
		return appendChart(nil, v.barChart(spec))
	}
	peaks := make([]float64, len(spec.groups))
	for i, g := range spec.groups {
		for _, s := range v.series {
			if r := v.row(spec.recipe, spec.test, g.cas, s, g.metric); r != nil {
				peaks[i] = max(peaks[i], r.Mean, r.CIHigh)
			}
		}
	}
	sorted := slices.Clone(peaks)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	var starts []float64 // the largest peak of each part
	for _, p := range sorted {
		if p > 0 && (len(starts) == 0 || p < starts[len(starts)-1]/10) {
			starts = append(starts, p)
		}
	}
	if len(starts) < 2 {
		return appendChart(nil, v.barChart(spec))
	}
	parts := make([][]barGroup, len(starts))
	for i, g := range spec.groups {
		part := 0 // a group nothing measured shows its failures in the first part
		for k, s := range starts {
			if peaks[i] > 0 && peaks[i] <= s {
				part = k
			}
		}
		parts[part] = append(parts[part], g)
	}
	var out []*Chart
	for k, gs := range parts {
		sub := spec
		sub.groups = gs
		sub.key = spec.key + "-" + strconv.Itoa(k+1)
		sub.title = spec.title + " (part " + strconv.Itoa(k+1) + " of " + strconv.Itoa(len(parts)) + ")"
		if c := v.barChart(sub); c != nil {
			c.Note += " Groups whose values differ by more than ten times are drawn in separate parts."
			out = append(out, c)
		}
	}
	return out
}

// barChart builds the chart of spec, or nil when no candidate has a
// value in it.
func (v *view) barChart(spec barSpec) *Chart {
	var cases, metrics []string
	for _, g := range spec.groups {
		cases = append(cases, g.cas)
		metrics = append(metrics, g.metric)
	}
	ss := v.seriesFor(spec.recipe, spec.test, cases, metrics)
	var unit string
	var tools []string
	var peak float64
	any := false
	for _, g := range spec.groups {
		for _, s := range ss {
			r := v.row(spec.recipe, spec.test, g.cas, s, g.metric)
			if r == nil || (spec.cv && !r.HasCV) {
				continue
			}
			any = true
			unit = r.Unit
			if r.Tool != "" && !slices.Contains(tools, r.Tool) {
				tools = append(tools, r.Tool)
			}
			peak = max(peak, r.Max, r.CIHigh)
		}
	}
	if !any {
		return nil
	}
	slices.Sort(tools)
	factor, shown := scaleFor(unit, peak)
	if spec.cv {
		factor, shown = 1, "CV %"
	}
	bc := &svg.Bars{Unit: shown, Series: seriesNames(ss), Colors: v.colors(ss), XLabel: groupsLabel(spec.groups)}
	tab := &Table{Head: summaryHead(shown, spec.cv)}
	for _, g := range spec.groups {
		bc.Groups = append(bc.Groups, g.label)
		cells := make([]svg.BarCell, len(ss))
		for i, s := range ss {
			r := v.row(spec.recipe, spec.test, g.cas, s, g.metric)
			if r == nil {
				why, failed, skipped := v.missing(spec.recipe, spec.test, g.cas, s.variant)
				cells[i].Missing = why
				if why != "" {
					tab.Rows = append(tab.Rows, missingRow(g.label, bc.Series[i], &Row{Failed: failed, Skipped: skipped}, len(tab.Head)))
				}
				continue
			}
			cells[i] = spec.cell(r, factor)
			tab.Rows = append(tab.Rows, summaryRow(g.label, bc.Series[i], r, factor, spec.cv))
		}
		bc.Cells = append(bc.Cells, cells)
	}
	if len(tools) > 1 {
		addToolColumn(tab, ss)
	}
	note := noteBars
	if spec.cv {
		note = noteCV
	}
	ch := &Chart{Context: v.ctx, Title: spec.title, Tools: tools, Note: note, Bars: bc, Table: tab, Slug: spec.key}
	if !spec.cv {
		for _, g := range spec.groups {
			ch.draws = append(ch.draws, [4]string{spec.recipe, spec.test, g.cas, g.metric})
		}
	}
	return ch
}

func (spec barSpec) cell(r *Row, factor float64) svg.BarCell {
	if spec.cv {
		if !r.HasCV {
			return svg.BarCell{Missing: "n=" + strconv.Itoa(r.N)}
		}
		return svg.BarCell{Has: true, Value: r.CV, Label: pct(r.CV)}
	}
	c := svg.BarCell{Has: true, Value: r.Mean * factor}
	if r.HasSpread {
		c.HasErr, c.ErrLow, c.ErrHig = true, r.CILow*factor, r.CIHigh*factor
	}
	switch {
	case spec.label != nil:
		c.Label = spec.label(r)
	case r.VsBest == VerdictSame:
		c.Label = "≈"
	}
	return c
}

// scaleFor picks the unit a chart draws in, given the largest value in
// the stored unit: sub-second times in ms, bytes in MiB.
func scaleFor(unit string, peak float64) (float64, string) {
	switch {
	case unit == "s" && peak < 1:
		return 1000, "ms"
	case unit == "us" && peak >= 10000:
		return 0.001, "ms"
	case unit == "B":
		return 1.0 / (1 << 20), "MiB"
	}
	return 1, unit
}

func summaryHead(unit string, cv bool) []string {
	if cv {
		return []string{"group", "candidate", "n", "CV", "stddev", "mean"}
	}
	u := ""
	if unit != "" {
		u = " (" + unit + ")"
	}
	return []string{"group", "candidate", "n", "mean" + u, "median", "stddev", "CV", "95% CI", "min", "max", "vs best"}
}

func summaryRow(group, name string, r *Row, f float64, cv bool) []string {
	n := nText(r)
	if cv {
		if !r.HasCV {
			return []string{group, name, n, "-", "-", svg.Num(r.Mean)}
		}
		return []string{group, name, n, pct(r.CV), svg.Num(r.Stddev), svg.Num(r.Mean)}
	}
	sd, cvs, ci := "-", "-", "-"
	if r.HasSpread {
		sd = svg.Num(r.Stddev * f)
		ci = "[" + svg.Num(r.CILow*f) + ", " + svg.Num(r.CIHigh*f) + "]"
	}
	if r.HasCV {
		cvs = pct(r.CV)
	}
	return []string{group, name, n, svg.Num(r.Mean * f), svg.Num(r.Median * f), sd, cvs, ci, svg.Num(r.Min * f), svg.Num(r.Max * f), verdictText(r)}
}

// addToolColumn names the tool of every row of a table whose chart mixes
// tools (fio and the built-in engine).
func addToolColumn(tab *Table, ss []series) {
	names := seriesNames(ss)
	tab.Head = append(tab.Head[:2:2], append([]string{"tool"}, tab.Head[2:]...)...)
	for i, row := range tab.Rows {
		tool := ""
		if k := slices.Index(names, row[1]); k >= 0 {
			tool = ss[k].tool
		}
		tab.Rows[i] = append(row[:2:2], append([]string{tool}, row[2:]...)...)
	}
}

// missingRow is the table row of a candidate that measured nothing.
func missingRow(group, name string, counts *Row, width int) []string {
	row := []string{group, name, nText(counts)}
	for len(row) < width {
		row = append(row, "")
	}
	return row
}

// nText is the number of iterations of a row, with those that measured
// nothing: "2 (+1 failed)".
func nText(r *Row) string {
	s := strconv.Itoa(r.N)
	switch {
	case r.Failed > 0 && r.Skipped > 0:
		s += " (+" + strconv.Itoa(r.Failed) + " failed, " + strconv.Itoa(r.Skipped) + " skipped)"
	case r.Failed > 0:
		s += " (+" + strconv.Itoa(r.Failed) + " failed)"
	case r.Skipped > 0:
		s += " (+" + strconv.Itoa(r.Skipped) + " skipped)"
	}
	ci := ""
	if r.SettleCI != "" {
		ci = " ±" + r.SettleCI
	}
	switch r.Settle {
	case "settled":
		s += ", settled" + ci
	case "max":
		s += ", not settled" + ci
	case "continue":
		s += ", unfinished"
	}
	return s
}

// verdictText is the "vs best" cell of a row.
func verdictText(r *Row) string {
	switch r.VsBest {
	case VerdictSame, VerdictWorse:
		return string(r.VsBest) + " (" + pvalue(r.P) + ")"
	case VerdictUntested:
		return "untested (n<2)"
	}
	return string(r.VsBest)
}

// groupsLabel names what tells a chart's groups apart: their cases,
// their metrics, or both.
func groupsLabel(gs []barGroup) string {
	cases, metrics := map[string]bool{}, map[string]bool{}
	for _, g := range gs {
		cases[g.cas], metrics[g.metric] = true, true
	}
	switch {
	case len(cases) > 1 && len(metrics) > 1:
		return "test case and metric"
	case len(metrics) > 1:
		return "metric"
	}
	return "test case"
}
