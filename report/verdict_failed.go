package report

import (
	"slices"
	"strconv"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// Failed runs count against their candidate: a failure is a result about
// the candidate (its filesystem ran out of space, its mount failed, its
// checker could not run), so a candidate whose runs of a case failed
// comes after every group of that case's rankings, whatever its other
// runs measured, and the ranking says why. Skipped and not applicable
// results are no failures, and a reliability iteration that failed but
// was classified (Fatal) already counts as the outcome it had.

// withFailures adds to rs, the rankings of criterion cr of rec, the
// candidates whose runs of their case failed, taking them out of the
// entries; a case nobody measured gets a ranking of its failures.
func withFailures(t *table, rec *recipes.Recipe, cr recipes.Criterion, cases caseFilter, rs []*Ranking) []*Ranking {
	fails, order := failuresOf(t, rec.Name, cr.Outcomes, cases)
	for _, k := range order {
		f := fails[k]
		matched := false
		for _, rk := range rs {
			if rk.Context.ID != k.ctx || rk.Test != k.test || rk.Case != k.cas {
				continue
			}
			matched = true
			rk.entries = slices.DeleteFunc(rk.entries, func(e Entry) bool { return e.Variant == k.variant })
			rk.Unranked = slices.DeleteFunc(rk.Unranked, func(v string) bool { return v == k.variant })
			rk.Aside = slices.DeleteFunc(rk.Aside, func(a Failure) bool { return a.Variant == k.variant })
			rk.Failed = append(rk.Failed, f.Failure)
		}
		if !matched {
			rk := &Ranking{Context: f.ctx, Criterion: cr.Name, Recipe: rec.Name, Test: k.test, Case: k.cas,
				Outcome: cr.Outcomes, Failed: []Failure{f.Failure}, p: welchP}
			rs = append(rs, rk)
		}
	}
	return rs
}

// failure is a Failure with where it happened.
type failure struct {
	Failure
	ctx *Context
}

// failuresOf counts the failed runs of recipe per context, test case and
// candidate, in the order the problems are listed, with the number of
// runs each case made; with outcomes, a failed run that was classified
// is an outcome, not a failure.
func failuresOf(t *table, recipe string, outcomes bool, cases caseFilter) (map[caseKey]*failure, []caseKey) {
	fails := map[caseKey]*failure{}
	var order []caseKey
	for _, p := range t.problems {
		if p.Recipe != recipe || p.Status != resultframe.StatusFailed || (outcomes && p.Classified) ||
			!cases.match(p.Case) {
			continue
		}
		k := caseKey{p.Context.ID, p.Recipe, p.Test, p.Case, p.Variant}
		f := fails[k]
		if f == nil {
			f = &failure{Failure: Failure{Variant: p.Variant, Error: p.Error}, ctx: p.Context}
			fails[k] = f
			order = append(order, k)
		}
		f.Failed++
		f.Runs++
	}
	for _, m := range t.measured {
		k := caseKey{m.ctx.ID, m.r.Recipe, m.r.Name, m.r.Case, m.r.Variant}
		if f := fails[k]; f != nil {
			f.Runs++
		}
	}
	return fails, order
}

// reason says why a candidate failed: "5 of 5 runs failed: no space left
// on device".
func (f Failure) reason() string {
	s := strconv.Itoa(f.Failed) + " of " + strconv.Itoa(f.Runs) + " runs failed"
	if f.Error != "" {
		s += ": " + f.Error
	}
	return s
}
