package report

import (
	"strconv"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// phaseColors are the parts of a phase chart, in order (the Okabe-Ito
// palette the bars use).
var phaseColors = []string{"#999999", "#E69F00", "#F0E442", "#0072B2", "#56B4E9", "#009E73", "#CC79A7", "#D55E00"}

// phaseChart draws the parts of a whole as stacked bars, one per case and
// candidate: each part the mean of one of bars' metrics. Parts no
// candidate measured are left out, and so is the chart when none was.
func (v *view) phaseChart(recipe string, bars []recipes.Bar, test, key, title string) *Chart {
	cases := v.cases[[2]string{recipe, test}]
	var parts []recipes.Bar
	for _, b := range bars {
		for _, c := range cases {
			if v.hasCase(recipe, test, c, b.Metric) {
				parts = append(parts, b)
				break
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	sc := &svg.Stack{Axis: "phase", Unit: "s"}
	tab := &Table{Head: []string{"case", "candidate"}}
	for i, b := range parts {
		sc.Categories = append(sc.Categories, b.Label)
		sc.Colors = append(sc.Colors, phaseColors[i%len(phaseColors)])
		tab.Head = append(tab.Head, b.Label)
	}
	tab.Head = append(tab.Head, "total")
	names := seriesNames(v.series)
	for _, c := range cases {
		for si, s := range v.series {
			row := svg.StackRow{Group: c, Label: names[si]}
			cells := []string{c, names[si]}
			var total float64
			measured := false
			for _, b := range parts {
				val, cell := 0.0, "–"
				if r := v.row(recipe, test, c, s, b.Metric); r != nil && r.N > 0 {
					val, cell, measured = r.Mean, svg.Num(r.Mean)+" s (n="+strconv.Itoa(r.N)+")", true
				}
				row.Values = append(row.Values, val)
				total += val
				cells = append(cells, cell)
			}
			if !measured {
				continue
			}
			sc.Rows = append(sc.Rows, row)
			tab.Rows = append(tab.Rows, append(cells, svg.Num(total)+" s"))
		}
	}
	if len(sc.Rows) == 0 {
		return nil
	}
	return &Chart{Slug: key, Context: v.ctx, Title: title, Stack: sc, Table: tab,
		Note: "Each bar is one candidate in one case: the mean duration of each phase of its boots on the host's clock, " +
			"from the boot's first byte on the console to the prompt; a phase ends at its console mark " +
			"(a mark a boot does not print merges its phase into the next)."}
}
