package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/report/svg"
)

// The pieces of text and tables the HTML page and the Markdown summary
// share, so that both say the same.

// SummaryLine counts what the report holds, in one sentence.
func (r *Report) SummaryLine() string {
	ok, failed, skipped := r.Counts()
	return fmt.Sprintf("%d results from %d %s: %d measured, %d failed, %d skipped; %d %s; %d %s.",
		ok+failed+skipped, len(r.Inputs), plural(len(r.Inputs), "file", "files"), ok, failed, skipped,
		len(r.Contexts), plural(len(r.Contexts), "context", "contexts"), len(r.Charts), plural(len(r.Charts), "chart", "charts"))
}

// contextWarning says, when the results come from several contexts, in
// what they differ and that they are reported apart.
func (r *Report) contextWarning() string {
	if len(r.Contexts) < 2 {
		return ""
	}
	var differ []string
	for i, a := range r.Contexts[0].Attrs {
		for _, c := range r.Contexts[1:] {
			if c.Attrs[i].Value != a.Value {
				differ = append(differ, a.Label)
				break
			}
		}
	}
	s := fmt.Sprintf("These results were measured in %d different contexts (they differ in %s). "+
		"Each context is reported in a section of its own; results of different contexts are never pooled.",
		len(r.Contexts), strings.Join(differ, ", "))
	if r.Across != nil {
		s += " \"Across contexts\" sets their boot times side by side."
	}
	return s
}

// acrossText introduces the charts across contexts.
func (r *Report) acrossText() string {
	ids := make([]string, len(r.Contexts))
	for i, c := range r.Contexts {
		ids[i] = c.ID
	}
	return "The same tests in contexts " + strings.Join(ids, ", ") + ", side by side: each group of bars is one context, " +
		"named by what sets it apart. What the contexts share:"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// inputsTable lists the input files.
func (r *Report) inputsTable(ins []InputSummary) *Table {
	t := &Table{Head: []string{"file", "measured", "failed", "skipped", "duplicates dropped", "runs", "plan complete", "variants", "contexts"}}
	for _, in := range ins {
		t.Rows = append(t.Rows, []string{in.Path, strconv.Itoa(in.OK), strconv.Itoa(in.Failed), strconv.Itoa(in.Skipped),
			strconv.Itoa(in.Duplicates), strconv.Itoa(len(in.Runs)), fmt.Sprintf("%d of %d", in.Complete, len(in.Runs)),
			strings.Join(in.Variants, ", "), strings.Join(in.Contexts, ", ")})
	}
	return t
}

// contextsTable shows every context attribute, one column per context.
func contextsTable(cs []*Context) *Table {
	t := &Table{Head: []string{"attribute"}}
	for _, c := range cs {
		t.Head = append(t.Head, c.ID)
	}
	for i, k := range contextKeys {
		row := []string{k.label}
		for _, c := range cs {
			row = append(row, orNone(c.Attrs[i].Value))
		}
		t.Rows = append(t.Rows, row)
	}
	tools := []string{"measuring tools"}
	variants := []string{"variants"}
	for _, c := range cs {
		tools = append(tools, orNone(strings.Join(c.Tools, ", ")))
		variants = append(variants, strings.Join(c.Variants, ", "))
	}
	return &Table{Head: t.Head, Rows: append(t.Rows, tools, variants)}
}

// problemsTable lists failed and skipped results with their errors.
func (r *Report) problemsTable() *Table {
	t := &Table{Head: []string{"context", "test", "case", "variant", "iteration", "status", "error", "file"}}
	for _, p := range r.Problems {
		t.Rows = append(t.Rows, []string{p.Context.ID, p.Recipe + "." + p.Test, p.Case, p.Variant,
			strconv.Itoa(p.Iteration), p.StatusText(), p.Error, p.Source})
	}
	return t
}

// comparisonCounts counts the changes by verdict, in a fixed order.
func (c *Comparison) counts() string {
	n := map[ChangeVerdict]int{}
	for _, ch := range c.Changes {
		n[ch.Verdict]++
	}
	var parts []string
	for _, v := range []ChangeVerdict{ChangeRegression, ChangeImprovement, ChangeNone, ChangeUntested, ChangeNoDirection} {
		parts = append(parts, fmt.Sprintf("%s %d", v, n[v]))
	}
	return fmt.Sprintf("%d metrics compared: %s.", len(c.Changes), strings.Join(parts, ", "))
}

// changesTable lists the significant changes, regressions first.
func (c *Comparison) changesTable() *Table {
	t := &Table{Head: []string{"verdict", "test", "case", "variant", "metric", "baseline", "new", "change", "Welch", "contexts"}}
	for _, v := range []ChangeVerdict{ChangeRegression, ChangeImprovement} {
		for _, ch := range c.Changes {
			if ch.Verdict != v {
				continue
			}
			t.Rows = append(t.Rows, []string{string(v), ch.New.Recipe + "." + ch.New.Test, ch.New.Case, ch.New.Variant,
				ch.New.Metric + " (" + ch.New.Unit + ", " + DirectionOf(ch.New.Metric, ch.New.Unit).String() + ")",
				meanN(ch.Base), meanN(ch.New), deltaText(ch), pvalue(ch.Welch.P), ch.Base.Context.ID + " → " + ch.New.Context.ID})
		}
	}
	return t
}

func meanN(r *Row) string { return svg.Num(r.Mean) + " (n=" + strconv.Itoa(r.N) + ")" }

func deltaText(ch Change) string {
	if !ch.HasDelta {
		return "-"
	}
	s := strconv.FormatFloat(100*ch.Delta, 'f', 1, 64) + "%"
	if ch.Delta > 0 {
		s = "+" + s
	}
	return s
}

// contextChangeLines describes how the baseline's contexts differ from
// the new ones.
func (c *Comparison) contextChangeLines() []string {
	var out []string
	for _, cc := range c.ContextChanges {
		if len(cc.Diffs) == 0 {
			out = append(out, cc.Base.ID+" → "+cc.New.ID+": same context")
			continue
		}
		out = append(out, cc.Base.ID+" → "+cc.New.ID+": "+strings.Join(cc.Diffs, "; "))
	}
	return out
}

// methodText explains how the numbers are computed, in paragraphs.
var methodText = []string{
	"Each row aggregates the iterations of one metric of one candidate (variant) in one test case, measured in one " +
		"context with one tool. Failed and skipped results are never averaged in: they are counted per file and listed " +
		"with their errors. The runner's own plan-complete marker is not a measurement.",
	"Mean, median, sample standard deviation (n-1) and coefficient of variation (standard deviation / |mean|) are " +
		"computed over the iterations. The 95% confidence interval of the mean is mean ± t(0.975, n-1) · s / √n, with " +
		"Student's t quantile computed by inverting its distribution function; it needs two iterations or more.",
	"\"vs best\" compares each candidate with the best mean of its test case and metric (higher is better for rates " +
		"and bandwidth, lower for times, latencies, CPU use and space used) by Welch's unequal-variances t-test, two-sided, " +
		"at 5%: \"n.s.\" means the difference is not significant, so the two candidates are not told apart by these " +
		"results; \"worse\" means it is. Metrics with no better direction (sizes, counts) get no verdict.",
	"A test with a settle block repeated each case on the target until the 95% interval of the mean of the metrics " +
		"it watches was within the block's share of the mean (the wider of Student's t on the values and on their " +
		"logarithms, which keeps its coverage on right-skewed timings), after at least min and at most max runs: the n " +
		"column then says \"settled ±w%\" or \"not settled ±w%\" (max reached), w being the interval's half-width at the end.",
	"The verdict ranks, per criterion and test case, the candidates with two results or more into significance " +
		"groups: sorted best first, a candidate joins the group of the best candidate before it unless Welch's test " +
		"(means) or Fisher's exact test (shares of iterations in an outcome axis's good classes) separates the two at " +
		"5%. No correction for the number of comparisons is made: with many cases, expect about one separation in " +
		"twenty to be chance. A requirement holds when the candidate's mean meets the bound in every case of the test " +
		"(or no iteration had a forbidden outcome); a requirement nothing measured is not met.",
	"Bandwidths are shown in decimal megabytes a second (fio's KiB/s × 1.024 / 1000). The fio CPU charts add usr and " +
		"sys CPU (% of the job's runtime) and divide the CPU seconds by the gigabytes moved.",
	"With a baseline, each metric of each candidate is compared with the same metric, test case and variant of the " +
		"baseline by the same Welch test: a significant change in the metric's bad direction is a regression, in its good " +
		"direction an improvement. Contexts that differ are named, not pooled.",
}
