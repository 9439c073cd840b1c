package report

import (
	"slices"
	"strconv"
)

// The outcome bars of the reliability part of seed 000 (p.94-97): how a
// filesystem comes back from a power cut (power_loss) or from a device
// that corrupts, drops or fails I/O (dm_flakey), as the share of
// iterations that ended in each outcome.

// outcomeOrder lists the outcome values of each recipe and axis from the
// best to the worst, as the recipes classify them.
var outcomeOrder = map[string]map[string][]string{
	"power_loss": {
		"consistency": {"Clean", "AutoFix", "Errors", "Fsck", "Fatal"},
		"data":        {"Intact", "LostUnsynced", "LostSynced", "Corrupt"},
	},
	"dm_flakey": {
		"consistency": {"Clean", "AutoRO", "AutoFix", "Fsck", "Fatal"},
		"data":        {"Intact", "LostUnsynced", "LostSynced", "Corrupt"},
	},
}

// outcomeColors gives every known outcome a fixed colour, from green
// (nothing happened) to black (lost).
var outcomeColors = map[string]string{
	"Clean": "#009E73", "Intact": "#009E73",
	"AutoFix": "#56B4E9", "LostUnsynced": "#56B4E9",
	"AutoRO": "#F0E442", "Errors": "#F0E442",
	"LostSynced": "#E69F00", "Fsck": "#D55E00",
	"Corrupt": "#CC3311", "Fatal": "#222222",
	notRecorded: "#BBBBBB",
}

// otherColors are the colours of outcome values the recipes do not
// document, in order of their names.
var otherColors = []string{"#AA4499", "#882255", "#44AA99", "#999933"}

var outcomeTitles = map[string]string{
	"power_loss": "Power loss", "dm_flakey": "dm-flakey faults",
}

func (v *view) outcomeCharts() []*Chart {
	var out []*Chart
	for _, recipe := range []string{"power_loss", "dm_flakey"} {
		for _, test := range v.tests[recipe] {
			for _, axis := range outcomeAxes {
				if c := v.outcomeChart(recipe, test, axis); c != nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

func (v *view) outcomeChart(recipe, test, axis string) *Chart {
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
	cats := slices.Clone(outcomeOrder[recipe][axis])
	var extra []string
	for val := range seen {
		if !slices.Contains(cats, val) && val != notRecorded {
			extra = append(extra, val)
		}
	}
	slices.Sort(extra)
	cats = append(cats, extra...)
	if seen[notRecorded] {
		cats = append(cats, notRecorded)
	}
	sc := &StackChart{Axis: axis, Categories: cats}
	for i, cat := range cats {
		col, ok := outcomeColors[cat]
		if !ok {
			col = otherColors[(i-len(outcomeOrder[recipe][axis]))%len(otherColors)]
		}
		sc.Colors = append(sc.Colors, col)
	}
	tab := &Table{Head: append([]string{"case", "candidate", "iterations"}, cats...)}
	for _, o := range outs {
		row := StackRow{Group: o.Case, Label: o.Variant}
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
	return &Chart{Slug: recipe + "-" + test + "-" + axis, Context: v.ctx,
		Title: outcomeTitles[recipe] + " " + test + ": " + axis + " outcomes", Stack: sc, Table: tab,
		Note: "Each bar is one candidate in one case: the share of its iterations that ended in each " + axis +
			" outcome (100% = every iteration classified; the count is written in each part)."}
}
