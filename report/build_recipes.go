package report

import (
	"strings"
	"sync"

	"github.com/fsbench/fsbench/recipes"
)

// The charts of a context come from the recipes' catalogue entries
// (recipes.Report.Charts): each recipe lists its figures as data, and the
// builders below draw each kind of chart for any recipe. They redraw the
// figures of the studies fsbench reproduces: fio bandwidth and CPU use,
// boot, mount and fsck time and what mkfs leaves behind (ELC 2015), dd's
// block-size sweep (the Raspberry Pi forum), fsync latency and SQLite
// transactions (the ext4 barrier slides), the small-file workloads (the
// journaling filesystems article), and the outcome bars of the
// reliability tests.

// recipeByName is the catalogue by name, read once; nothing changes it.
var recipeByName = sync.OnceValue(func() map[string]*recipes.Recipe {
	m := map[string]*recipes.Recipe{}
	for _, r := range recipes.All() {
		m[r.Name] = r
	}
	return m
})

// recipeCharts draws the charts of every recipe of the context, in the
// catalogue's order: per test, the recipe's charts of the whole test,
// then those of each case.
func (v *view) recipeCharts() []*Chart {
	var out []*Chart
	for _, name := range recipes.Order() {
		rec := recipeByName()[name]
		for _, test := range v.tests[rec.Name] {
			for _, ch := range rec.Report.Charts {
				if !ch.PerCase {
					out = append(out, v.recipeChart(rec, ch, test, "")...)
				}
			}
			for _, c := range v.cases[[2]string{rec.Name, test}] {
				for _, ch := range rec.Report.Charts {
					if ch.PerCase {
						out = append(out, v.recipeChart(rec, ch, test, c)...)
					}
				}
			}
		}
	}
	return out
}

// named fills a chart's slug or title in for a test, a case and an axis.
func named(s, test, cas, axis string) string {
	return strings.NewReplacer("{test}", test, "{case}", cas, "{axis}", axis).Replace(s)
}

func (v *view) recipeChart(rec *recipes.Recipe, ch recipes.Chart, test, cas string) []*Chart {
	out := v.recipeChartOf(rec, ch, test, cas)
	for _, c := range out {
		c.draws = append(c.draws, [4]string{rec.Name, test, "", ""})
	}
	return out
}

func (v *view) recipeChartOf(rec *recipes.Recipe, ch recipes.Chart, test, cas string) []*Chart {
	slugOf, title := named(ch.Slug, test, cas, ""), named(ch.Title, test, cas, "")
	switch ch.Kind {
	case recipes.Bars:
		spec := barSpec{key: slugOf, title: title, recipe: rec.Name, test: test, groups: v.barGroups(rec.Name, ch, test, cas),
			cv: ch.CV, split: ch.Split}
		if ch.CVLabels {
			spec.label = cvLabel
		}
		return v.barCharts(spec)
	case recipes.RateBySize:
		return appendChart(nil, v.rateChart(rec.Name, ch.Bars, test, slugOf, title))
	case recipes.LatencyCDF:
		return appendChart(nil, v.latencyCDF(rec.Name, test, cas, slugOf, title))
	case recipes.Phases:
		return appendChart(nil, v.phaseChart(rec.Name, ch.Bars, test, slugOf, title))
	case recipes.Outcomes:
		var out []*Chart
		for _, axis := range rec.Report.Outcomes {
			out = appendChart(out, v.outcomeChart(rec.Name, test, axis,
				named(ch.Slug, test, cas, axis.Attr), named(ch.Title, test, cas, axis.Attr)))
		}
		return out
	}
	return nil
}

// barGroups lays out a bar chart's groups: one per bar and case (of the
// chart's case alone when it is drawn per case), labelled as the chart
// says.
func (v *view) barGroups(recipe string, ch recipes.Chart, test, cas string) []barGroup {
	cases := v.cases[[2]string{recipe, test}]
	several := len(cases) > 1
	if ch.PerCase {
		cases = []string{cas}
	}
	var groups []barGroup
	for _, c := range cases {
		bars := ch.Bars
		if ch.Measured {
			bars = nil
			for _, b := range ch.Bars {
				if v.hasCase(recipe, test, c, b.Metric) {
					bars = append(bars, b)
				}
			}
			if len(bars) == 0 && ch.OrFirst {
				bars = ch.Bars[:1] // a case no candidate measured shows its failures
			}
		}
		for _, b := range bars {
			groups = append(groups, barGroup{groupLabel(ch.CaseLabels, b.Label, c, several, len(bars)), c, b.Metric})
		}
	}
	return groups
}

// groupLabel names a bar group: the case alone for a bar without a label,
// else the bar's label after the case as the chart's CaseLabels says.
func groupLabel(cl recipes.CaseLabel, label, cas string, several bool, bars int) string {
	switch {
	case label == "":
		return cas
	case cl == recipes.CaseNever:
		return label
	case cl == recipes.CaseAlways && bars == 1:
		return cas
	case cl == recipes.CaseAlways || several:
		return cas + " " + label
	}
	return label
}

// cvLabel writes a coefficient of variation above its bar.
func cvLabel(r *Row) string {
	if r.HasCV {
		return "CV " + pct(r.CV)
	}
	return ""
}

// appendChart appends the charts that are not nil.
func appendChart(out []*Chart, cs ...*Chart) []*Chart {
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}
