package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Row aggregates the iterations of one metric of one candidate (variant)
// in one test case, measured in one context with one tool.
type Row struct {
	Context                           *Context
	Recipe, Test, Case, Variant, Tool string
	Metric, Unit                      string
	Summary
	// Failed and Skipped count the iterations of this candidate and test
	// case that measured nothing (they are in no statistic).
	Failed, Skipped int
	// Settle is how the case's settle rule ended on the target
	// ("settled", "max", or "continue" when its last iteration is
	// missing), and SettleCI the interval's relative half-width then;
	// both empty for a case with a fixed count.
	Settle, SettleCI string
	// VsBest compares the row with the best candidate of its test case
	// and metric (see Verdict); P is the Welch p-value of that
	// comparison, when tested.
	VsBest Verdict
	P      float64
	HasP   bool
}

// Verdict is how a candidate compares with the best one.
type Verdict string

// The verdicts of Row.VsBest.
const (
	VerdictNone     Verdict = ""         // no direction, or nothing to compare with
	VerdictBest     Verdict = "best"     // the best mean of its test case
	VerdictSame     Verdict = "n.s."     // not significantly different from the best
	VerdictWorse    Verdict = "worse"    // significantly worse than the best
	VerdictUntested Verdict = "untested" // fewer than two iterations here or in the best
)

// Problem is a result that was not measured: failed or skipped.
type Problem struct {
	Context                     *Context
	Source                      string
	Recipe, Test, Case, Variant string
	Iteration                   int
	Status                      resultframe.Status
	Error                       string
	// NotApplicable: the test cannot apply to this candidate (the plan
	// knew it), so it was not run; it is no failure.
	NotApplicable bool
	// Classified: the result carries its outcome classes (a reliability
	// iteration that ended Fatal), which count as its outcome.
	Classified bool
}

// StatusText is the problem's status as tables show it.
func (p Problem) StatusText() string {
	if p.NotApplicable {
		return "not applicable"
	}
	return string(p.Status)
}

// Outcome counts the values an outcome attribute took over the
// iterations of one reliability test case (power_loss, dm_flakey).
type Outcome struct {
	Context                     *Context
	Recipe, Test, Case, Variant string
	Axis                        string         // "consistency" or "data"
	Counts                      map[string]int // value -> iterations
}

// InputSummary describes one input file.
type InputSummary struct {
	Path                  string
	OK, Failed, Skipped   int
	Duplicates            int
	Runs                  []string // run ids, in order of appearance
	Complete              int      // runs whose plan-complete marker is there
	Variants              []string
	Contexts              []string // context IDs
	plansComplete, seenID map[string]bool
}

// table is the aggregation of a set of inputs.
type table struct {
	contexts []*Context
	rows     []*Row
	problems []Problem
	firsts   []FirstState
	outcomes []*Outcome
	inputs   []InputSummary
	// measured are the results that measured (status ok), in input
	// order: the sections that read attributes (a block trace, the
	// storage's registers) take them from here.
	measured []measured
}

// measured is one result that measured, in its context, with its tool.
type measured struct {
	ctx  *Context
	tool string
	r    *resultframe.Result
}

// order remembers the order of first appearance of names.
type order map[string]int

func (o order) see(s string) {
	if _, ok := o[s]; !ok {
		o[s] = len(o)
	}
}

type rowKey struct {
	ctx, recipe, test, cas, variant, tool, metric string
}

// aggregator accumulates results into a table.
type aggregator struct {
	t        *table
	ctxByKey map[string]*Context
	values   map[rowKey][]float64
	units    map[rowKey]string
	keys     []rowKey // in order of first appearance
	outcomes map[rowKey]*Outcome
	ord      map[string]order
	settle   map[caseKey]settleState
}

// caseKey names a candidate's test case in a context.
type caseKey struct{ ctx, recipe, test, cas, variant string }

// settleState is the settle attributes of a case's latest iteration.
type settleState struct {
	iter      int
	state, ci string
}

// aggregate groups the results of ins by context, test case, candidate
// and metric. Results of the runner itself (recipe "fsbench": the
// plan-complete marker) only count in the input summary.
func aggregate(ins []Input) *table {
	a := &aggregator{t: &table{}, ctxByKey: map[string]*Context{}, values: map[rowKey][]float64{},
		units: map[rowKey]string{}, outcomes: map[rowKey]*Outcome{}, settle: map[caseKey]settleState{},
		ord: map[string]order{"recipe": {}, "test": {}, "case": {}, "variant": {}, "tool": {}, "metric": {}}}
	for _, in := range ins {
		sum := InputSummary{Path: in.Path, Duplicates: in.Duplicates, plansComplete: map[string]bool{}, seenID: map[string]bool{}}
		for i := range in.Results {
			a.add(&sum, &in.Results[i])
		}
		sum.Complete = len(sum.plansComplete)
		a.t.inputs = append(a.t.inputs, sum)
	}
	return a.finish()
}

// add takes in one result of the input sum describes.
func (a *aggregator) add(sum *InputSummary, r *resultframe.Result) {
	sum.addRun(r)
	if r.IsControl() {
		if r.IsPlanComplete() {
			sum.plansComplete[r.RunID] = true
		}
		return
	}
	c := a.ctxByKey[contextKey(r)]
	if c == nil {
		c = newContext(contextID(len(a.t.contexts)), r)
		a.ctxByKey[c.key] = c
		a.t.contexts = append(a.t.contexts, c)
	}
	addUnique(&c.Variants, r.Variant)
	addUnique(&sum.Variants, r.Variant)
	addUnique(&sum.Contexts, c.ID)
	tool := toolOf(r)
	if tool != "" {
		addUnique(&c.Tools, tool)
	}
	a.ord["recipe"].see(r.Recipe)
	a.ord["test"].see(r.Name)
	a.ord["case"].see(r.Case)
	a.ord["variant"].see(r.Variant)
	a.ord["tool"].see(tool)
	classified := a.t.addOutcomes(a.outcomes, c, r)
	if st := r.Attrs["settle"]; st != "" {
		k := caseKey{c.ID, r.Recipe, r.Name, r.Case, r.Variant}
		if prev, ok := a.settle[k]; !ok || r.Iteration > prev.iter {
			a.settle[k] = settleState{r.Iteration, st, r.Attrs["settle_ci"]}
		}
	}
	if r.Status != resultframe.StatusOK {
		sum.count(r.Status)
		a.t.problems = append(a.t.problems, Problem{Context: c, Source: sum.Path, Recipe: r.Recipe, Test: r.Name,
			Case: r.Case, Variant: r.Variant, Iteration: r.Iteration, Status: r.Status, Error: r.Error,
			NotApplicable: r.Status == resultframe.StatusSkipped && r.Attrs["not_applicable"] != "", Classified: classified})
		return
	}
	sum.OK++
	a.t.firsts = append(a.t.firsts, firstStates(c, r)...)
	a.t.measured = append(a.t.measured, measured{c, tool, r})
	for _, m := range append(slices.Clone(r.Metrics), derivedMetrics(r)...) {
		v, unit := displayUnit(m.Value, m.Unit)
		k := rowKey{c.ID, r.Recipe, r.Name, r.Case, r.Variant, tool, m.Name}
		if _, ok := a.values[k]; !ok {
			a.keys = append(a.keys, k)
			a.units[k] = unit
			a.ord["metric"].see(m.Name)
		}
		a.values[k] = append(a.values[k], v)
	}
}

// finish makes the rows, in the order of the contexts, then of first
// appearance of recipe, test, case, metric, variant and tool, so that a
// table lists the candidates of one metric together.
func (a *aggregator) finish() *table {
	t, ord := a.t, a.ord
	ctxIndex := map[string]int{}
	for i, c := range t.contexts {
		ctxIndex[c.ID] = i
		slices.Sort(c.Tools)
	}
	slices.SortStableFunc(a.keys, func(x, y rowKey) int {
		return cmp.Or(cmp.Compare(ctxIndex[x.ctx], ctxIndex[y.ctx]),
			cmp.Compare(ord["recipe"][x.recipe], ord["recipe"][y.recipe]),
			cmp.Compare(ord["test"][x.test], ord["test"][y.test]),
			cmp.Compare(ord["case"][x.cas], ord["case"][y.cas]),
			cmp.Compare(ord["metric"][x.metric], ord["metric"][y.metric]),
			cmp.Compare(ord["variant"][x.variant], ord["variant"][y.variant]),
			cmp.Compare(ord["tool"][x.tool], ord["tool"][y.tool]))
	})
	for _, k := range a.keys {
		st := a.settle[caseKey{k.ctx, k.recipe, k.test, k.cas, k.variant}]
		t.rows = append(t.rows, &Row{Context: t.contexts[ctxIndex[k.ctx]], Recipe: k.recipe, Test: k.test, Case: k.cas,
			Variant: k.variant, Tool: k.tool, Metric: k.metric, Unit: a.units[k], Summary: Summarize(a.values[k]),
			Settle: st.state, SettleCI: st.ci})
	}
	// Failures in the same order as the rows, iterations in order.
	slices.SortStableFunc(t.problems, func(x, y Problem) int {
		return cmp.Or(cmp.Compare(ctxIndex[x.Context.ID], ctxIndex[y.Context.ID]),
			cmp.Compare(ord["recipe"][x.Recipe], ord["recipe"][y.Recipe]),
			cmp.Compare(ord["test"][x.Test], ord["test"][y.Test]),
			cmp.Compare(ord["case"][x.Case], ord["case"][y.Case]),
			cmp.Compare(ord["variant"][x.Variant], ord["variant"][y.Variant]),
			cmp.Compare(x.Iteration, y.Iteration))
	})
	t.countProblems()
	compareWithBest(t.rows)
	t.sortOutcomes(a.outcomes, ord, ctxIndex)
	return t
}

// countProblems tells every row how many iterations of its candidate and
// test case failed or were skipped.
func (t *table) countProblems() {
	failed, skipped := map[caseKey]int{}, map[caseKey]int{}
	for _, p := range t.problems {
		k := caseKey{p.Context.ID, p.Recipe, p.Test, p.Case, p.Variant}
		if p.Status == resultframe.StatusSkipped {
			skipped[k]++
		} else {
			failed[k]++
		}
	}
	for _, r := range t.rows {
		k := caseKey{r.Context.ID, r.Recipe, r.Test, r.Case, r.Variant}
		r.Failed, r.Skipped = failed[k], skipped[k]
	}
}

func (s *InputSummary) addRun(r *resultframe.Result) {
	if !s.seenID[r.RunID] {
		s.seenID[r.RunID] = true
		s.Runs = append(s.Runs, r.RunID)
	}
}

func (s *InputSummary) count(st resultframe.Status) {
	if st == resultframe.StatusSkipped {
		s.Skipped++
	} else {
		s.Failed++
	}
}

func addUnique(list *[]string, s string) {
	if !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}

// addOutcomes counts r's outcome attributes, and says whether it had
// any. A result that carries them counts whatever its status: a
// reliability iteration may end failed because the filesystem did
// (Fatal), and that is an outcome, not a missing measurement.
func (t *table) addOutcomes(outcomes map[rowKey]*Outcome, c *Context, r *resultframe.Result) bool {
	rec, ok := recipeByName()[r.Recipe]
	if !ok || len(rec.Report.Outcomes) == 0 || r.Status == resultframe.StatusSkipped {
		return false
	}
	classified := false
	for _, ax := range rec.Report.Outcomes {
		axis := ax.Attr
		counts, ok := rec.Report.Classes(axis, r)
		if !ok {
			continue
		}
		classified = true
		k := rowKey{c.ID, r.Recipe, r.Name, r.Case, r.Variant, "", axis}
		o := outcomes[k]
		if o == nil {
			o = &Outcome{Context: c, Recipe: r.Recipe, Test: r.Name, Case: r.Case, Variant: r.Variant, Axis: axis, Counts: map[string]int{}}
			outcomes[k] = o
		}
		for v, n := range counts {
			o.Counts[v] += n
		}
	}
	return classified
}

func (t *table) sortOutcomes(outcomes map[rowKey]*Outcome, ord map[string]order, ctxIndex map[string]int) {
	for _, o := range outcomes {
		t.outcomes = append(t.outcomes, o)
	}
	slices.SortFunc(t.outcomes, func(a, b *Outcome) int {
		return cmp.Or(cmp.Compare(ctxIndex[a.Context.ID], ctxIndex[b.Context.ID]),
			cmp.Compare(ord["recipe"][a.Recipe], ord["recipe"][b.Recipe]),
			cmp.Compare(ord["test"][a.Test], ord["test"][b.Test]),
			cmp.Compare(a.Axis, b.Axis),
			cmp.Compare(ord["case"][a.Case], ord["case"][b.Case]),
			cmp.Compare(ord["variant"][a.Variant], ord["variant"][b.Variant]))
	})
}

// compareWithBest sets VsBest on every row: among the candidates of one
// test case and metric, the best mean (by the metric's direction) is
// "best"; each other candidate is compared with it by Welch's t-test.
// Candidates measured with different tools (fio and the built-in engine,
// which has fio's semantics) are compared too: that is the comparison
// the user asked for, and every table that shows it names the tools.
func compareWithBest(rows []*Row) {
	type groupKey struct{ ctx, recipe, test, cas, metric string }
	groups := map[groupKey][]*Row{}
	var order []groupKey
	for _, r := range rows {
		k := groupKey{r.Context.ID, r.Recipe, r.Test, r.Case, r.Metric}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		g := groups[k]
		dir := DirectionOf(g[0].Metric, g[0].Unit)
		if dir == NoDirection || len(g) < 2 {
			continue
		}
		best := g[0]
		for _, r := range g[1:] {
			if (dir == HigherIsBetter && r.Mean > best.Mean) || (dir == LowerIsBetter && r.Mean < best.Mean) {
				best = r
			}
		}
		for _, r := range g {
			if r == best {
				r.VsBest = VerdictBest
				continue
			}
			w := WelchTest(r.Summary, best.Summary)
			switch {
			case !w.Tested:
				r.VsBest = VerdictUntested
			case w.Significant():
				r.VsBest, r.P, r.HasP = VerdictWorse, w.P, true
			default:
				r.VsBest, r.P, r.HasP = VerdictSame, w.P, true
			}
		}
	}
}

// String names a row for messages.
func (r *Row) String() string {
	return fmt.Sprintf("%s.%s %s %s %s", r.Recipe, r.Test, r.Case, r.Variant, r.Metric)
}
