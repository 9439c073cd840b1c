package report

import (
	"slices"
	"strconv"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// The outcome bars of the reliability part of the ELC 2015 study (p.94-97):
// how a filesystem comes back from a power cut (power_loss) or from a
// device that corrupts, drops or fails I/O (dm_flakey), as the share of
// iterations that ended in each outcome.

// outcomeColors gives every known outcome a fixed colour, from green
// (nothing happened) to black (lost).
var outcomeColors = map[string]string{
	"Clean": "#009E73", "Intact": "#009E73",
	"AutoFix": "#56B4E9", "LostUnsynced": "#56B4E9",
	"AutoRO": "#F0E442", "Errors": "#F0E442",
	"LostSynced": "#E69F00", "Fsck": "#D55E00",
	"Corrupt": "#CC3311", "Fatal": "#222222",
	"NoFault": "#E8E8E8", recipes.NotRecorded: "#BBBBBB",
}

// otherColors are the colours of outcome values the recipes do not
// document, in order of their names.
var otherColors = []string{"#AA4499", "#882255", "#44AA99", "#999933"}

// outcomeChart draws the classes of one axis of a test, a stacked bar
// per case and candidate, in the order the recipe lists them (best
// first), then any the recipe does not document, then iterations that
// recorded none.
func (v *view) outcomeChart(recipe, test string, ax recipes.Axis, key, title string) *Chart {
	axis := ax.Attr
	var outs []*Outcome
	seen := map[string]bool{}
	for _, o := range v.outcomes {
		if o.Recipe == recipe && o.Test == test && o.Axis == axis {
			outs = append(outs, o)
			for val := range o.Counts {
				seen[val] = true
			}
		}
	}
	if len(outs) == 0 {
		return nil
	}
	// An iteration that met no fault is a class only where one did.
	cats := slices.DeleteFunc(slices.Clone(ax.Classes), func(c string) bool { return slices.Contains(noFaultClasses, c) && !seen[c] })
	var extra []string
	for val := range seen {
		if !slices.Contains(cats, val) && val != recipes.NotRecorded {
			extra = append(extra, val)
		}
	}
	slices.Sort(extra)
	known := len(cats)
	cats = append(cats, extra...)
	if seen[recipes.NotRecorded] {
		cats = append(cats, recipes.NotRecorded)
	}
	sc := &svg.Stack{Axis: axis, Categories: cats}
	for i, cat := range cats {
		col, ok := outcomeColors[cat]
		if !ok {
			col = otherColors[max(0, i-known)%len(otherColors)]
		}
		sc.Colors = append(sc.Colors, col)
	}
	tab := &Table{Head: append([]string{"case", "candidate", "iterations"}, cats...)}
	for _, o := range outs {
		row := svg.StackRow{Group: o.Case, Label: o.Variant}
		cells := []string{o.Case, o.Variant, ""}
		for _, cat := range cats {
			n := o.Counts[cat]
			row.Counts = append(row.Counts, n)
			row.Total += n
		}
		for _, n := range row.Counts {
			cells = append(cells, strconv.Itoa(n)+" ("+pct(100*float64(n)/float64(row.Total))+")")
		}
		cells[2] = strconv.Itoa(row.Total)
		sc.Rows = append(sc.Rows, row)
		tab.Rows = append(tab.Rows, cells)
	}
	ch := &Chart{Slug: key, Context: v.ctx, Title: title, Stack: sc, Table: tab,
		Note: "Each bar is one candidate in one case: the share of its iterations that ended in each " + axis +
			" outcome (100% = every iteration classified; the count is written in each part)."}
	for _, o := range outs {
		ch.draws = append(ch.draws, [4]string{recipe, test, o.Case, axis})
	}
	return ch
}
