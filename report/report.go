package report

import (
	"fmt"
	"slices"
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
	// Weights weigh the verdict's criteria by name in the overall place
	// (the catalogue's default for each one not named); Requirements
	// are the hard requirements the verdict checks every candidate
	// against.
	Weights      map[string]float64
	Requirements []Requirement
}

// Report is everything a report shows, ready to be written.
type Report struct {
	Title    string
	Inputs   []InputSummary
	Contexts []*Context
	// Across holds what the contexts share, when charts set their values
	// side by side (boot time per kernel); nil otherwise.
	Across   *Context
	Rows     []*Row
	Problems []Problem
	// FirstStates are the first bad states the crash-state campaigns
	// name, in the order of the results.
	FirstStates []FirstState
	Outcomes    []*Outcome
	Charts      []*Chart
	Comparison  *Comparison
	// Verdict ranks the candidates by every criterion the results
	// measure.
	Verdict *Answer
	// Sections are the parts of each context beyond its recipes' charts:
	// write amplification, lifetime, flash geometry and health; their
	// charts are in Charts too.
	Sections []*Section
	// models are the endurance runs the lifetime sections modelled, or
	// say why not, for the JSON export.
	models []*enduranceRun
}

// Build aggregates the inputs and lays out the charts.
func Build(ins []Input, opt Options) *Report {
	t := aggregate(ins)
	r := &Report{Title: opt.Title, Inputs: t.inputs, Contexts: t.contexts, Rows: t.rows, Problems: t.problems, FirstStates: t.firsts, Outcomes: t.outcomes}
	if r.Title == "" {
		r.Title = "fsbench report"
	}
	for _, c := range t.contexts {
		v := newView(t, c)
		cs := v.recipeCharts()
		secs, runs := v.flashSections()
		for _, s := range secs {
			cs = append(cs, s.charts()...)
		}
		r.Sections = append(r.Sections, secs...)
		r.models = append(r.models, runs...)
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
	r.Verdict = buildVerdict(t, r.models, opt.Weights, opt.Requirements)
	for _, rk := range r.Verdict.Rankings {
		rk.Chart = r.chartFor(rk)
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

// chartFor is the slug of the chart that draws a ranking's numbers: the
// one that draws its case and metric, else the first of its test.
func (r *Report) chartFor(rk *Ranking) string {
	for _, key := range [][4]string{{rk.Recipe, rk.Test, rk.Case, rk.Metric}, {rk.Recipe, rk.Test, "", ""}} {
		for _, ch := range r.Charts {
			if ch.Context == rk.Context && slices.Contains(ch.draws, key) {
				return ch.Slug
			}
		}
	}
	return ""
}
