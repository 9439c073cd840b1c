package report

import (
	"fmt"
)

// Format names the version of the JSON export.
const Format = "fsbench-report/1"

// Options are the choices of a report.
type Options struct {
	// Title heads the report; "fsbench report" when empty.
	Title string
	// Baseline, when set, is compared with the inputs: the report gains
	// a comparison section that marks regressions.
	Baseline []Input
}

// Report is everything a report shows, ready to be written.
type Report struct {
	Title    string
	Inputs   []InputSummary
	Contexts []*Context
	// Across holds what the contexts share, when charts set their values
	// side by side (boot time per kernel); nil otherwise.
	Across     *Context
	Rows       []*Row
	Problems   []Problem
	Outcomes   []*Outcome
	Charts     []*Chart
	Comparison *Comparison
}

// Build aggregates the inputs and lays out the charts.
func Build(ins []Input, opt Options) *Report {
	t := aggregate(ins)
	r := &Report{Title: opt.Title, Inputs: t.inputs, Contexts: t.contexts, Rows: t.rows, Problems: t.problems, Outcomes: t.outcomes}
	if r.Title == "" {
		r.Title = "fsbench report"
	}
	for _, c := range t.contexts {
		v := newView(t, c)
		cs := v.recipeCharts()
		for i, ch := range cs {
			ch.Slug = fmt.Sprintf("%s-%02d-%s", c.ID, i+1, slug(ch.Slug))
		}
		r.Charts = append(r.Charts, cs...)
	}
	if across, cs := acrossCharts(t); len(cs) > 0 {
		for i, ch := range cs {
			ch.Slug = fmt.Sprintf("%s-%02d-%s", across.ID, i+1, slug(ch.Slug))
		}
		r.Across = across
		r.Charts = append(r.Charts, cs...)
	}
	if len(opt.Baseline) > 0 {
		base := aggregate(opt.Baseline)
		for _, c := range base.contexts {
			c.ID = "base-" + c.ID
		}
		for i := range base.inputs {
			for j, id := range base.inputs[i].Contexts {
				base.inputs[i].Contexts[j] = "base-" + id
			}
		}
		r.Comparison = compare(base, t)
	}
	return r
}

// Counts returns the numbers of results measured, failed and skipped.
func (r *Report) Counts() (ok, failed, skipped int) {
	for _, in := range r.Inputs {
		ok, failed, skipped = ok+in.OK, failed+in.Failed, skipped+in.Skipped
	}
	return
}

// chartsOf returns the charts of context c.
func (r *Report) chartsOf(c *Context) []*Chart {
	var out []*Chart
	for _, ch := range r.Charts {
		if ch.Context == c {
			out = append(out, ch)
		}
	}
	return out
}
