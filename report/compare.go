package report

import (
	"math"
	"slices"
)

// Comparison sets the results of a report against a baseline.
type Comparison struct {
	Inputs   []InputSummary
	Contexts []*Context // the baseline's
	Changes  []Change
	// ContextChanges lists, per pair of contexts compared, the attributes
	// that differ ("kernel: 6.1.0-57-amd64 -> 6.12.9-amd64"): a change
	// in the results may come from them.
	ContextChanges []ContextChange
}

// ContextChange is how a baseline context differs from a new one.
type ContextChange struct {
	Base, New *Context
	Diffs     []string
}

// ChangeVerdict classifies a change.
type ChangeVerdict string

// The verdicts of a change. Only a significant difference counts as a
// regression or an improvement.
const (
	ChangeRegression  ChangeVerdict = "regression"
	ChangeImprovement ChangeVerdict = "improvement"
	ChangeNone        ChangeVerdict = "no significant change"
	ChangeUntested    ChangeVerdict = "untested (n<2)"
	ChangeNoDirection ChangeVerdict = "no direction"
)

// Change compares one metric of one candidate in one test case.
type Change struct {
	Base, New *Row
	// Delta is the relative change of the mean, (new - base) / |base|;
	// HasDelta is false when the base mean is 0.
	Delta    float64
	HasDelta bool
	Welch    Welch
	Verdict  ChangeVerdict
}

// Regressions returns the changes that are regressions.
func (c *Comparison) Regressions() []Change {
	var out []Change
	for _, ch := range c.Changes {
		if ch.Verdict == ChangeRegression {
			out = append(out, ch)
		}
	}
	return out
}

// compare matches every row of cur with the rows of base of the same
// recipe, test, case, variant and metric. A candidate measured in several
// contexts is compared once per pair of contexts, never pooled. A
// difference is a regression when Welch's t-test finds it significant at
// Alpha and it goes in the metric's bad direction.
func compare(base, cur *table) *Comparison {
	type key struct{ recipe, test, cas, variant, metric string }
	byKey := map[key][]*Row{}
	for _, r := range base.rows {
		k := key{r.Recipe, r.Test, r.Case, r.Variant, r.Metric}
		byKey[k] = append(byKey[k], r)
	}
	cmpn := &Comparison{Inputs: base.inputs, Contexts: base.contexts}
	type pair struct{ base, cur *Context }
	var pairs []pair
	for _, n := range cur.rows {
		for _, b := range byKey[key{n.Recipe, n.Test, n.Case, n.Variant, n.Metric}] {
			cmpn.Changes = append(cmpn.Changes, change(b, n))
			if p := (pair{b.Context, n.Context}); !slices.Contains(pairs, p) {
				pairs = append(pairs, p)
			}
		}
	}
	for _, p := range pairs {
		cc := ContextChange{Base: p.base, New: p.cur}
		for i, a := range p.base.Attrs {
			if b := p.cur.Attrs[i]; a.Value != b.Value {
				cc.Diffs = append(cc.Diffs, a.Label+": "+orNone(a.Value)+" → "+orNone(b.Value))
			}
		}
		if !slices.Equal(p.base.Tools, p.cur.Tools) {
			cc.Diffs = append(cc.Diffs, "tools: "+orNone(joinComma(p.base.Tools))+" → "+orNone(joinComma(p.cur.Tools)))
		}
		cmpn.ContextChanges = append(cmpn.ContextChanges, cc)
	}
	return cmpn
}

func change(b, n *Row) Change {
	ch := Change{Base: b, New: n}
	if b.Mean != 0 {
		ch.Delta, ch.HasDelta = (n.Mean-b.Mean)/math.Abs(b.Mean), true
	}
	dir := DirectionOf(n.Metric, n.Unit)
	ch.Welch = WelchTest(n.Summary, b.Summary)
	switch {
	case dir == NoDirection:
		ch.Verdict = ChangeNoDirection
	case !ch.Welch.Tested:
		ch.Verdict = ChangeUntested
	case !ch.Welch.Significant():
		ch.Verdict = ChangeNone
	case (n.Mean > b.Mean) == (dir == HigherIsBetter):
		ch.Verdict = ChangeImprovement
	default:
		ch.Verdict = ChangeRegression
	}
	return ch
}

func orNone(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// String describes the change in one line: "fio.bandwidth randread-4KiB
// ext4 read_bw (MB/s): 1.20 (n=3) -> 0.900 (n=3), -25.0%, p=0.003".
func (ch Change) String() string {
	n := ch.New
	return n.Recipe + "." + n.Test + " " + n.Case + " " + n.Variant + " " + n.Metric + " (" + n.Unit + "): " +
		meanN(ch.Base) + " → " + meanN(n) + ", " + deltaText(ch) + ", " + pvalue(ch.Welch.P)
}
