package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/resultframe"
)

type variantResults struct {
	name    string
	results []resultframe.Result
}

// summaryOf is how the table reads a recipe's results (its catalogue
// entry's Report): the headline metrics, or every metric of a recipe the
// catalogue does not know.
func summaryOf(recipe string) recipes.Report {
	if r, ok := recipes.Lookup(recipe); ok {
		return r.Report
	}
	return recipes.Report{}
}

// writeSummary prints one row per test case and metric, one column per
// variant, each cell the median over the iterations (with their number
// when there are several).
func writeSummary(w io.Writer, vs []variantResults) {
	type rowKey struct{ recipe, test, cas, metric, label, unit string }
	cells := map[rowKey]map[string][]float64{}
	failures := map[rowKey]map[string]int{}
	classes := map[rowKey]map[string]map[string]int{}
	var order []rowKey
	add := func(k rowKey, variant string, v float64) {
		if cells[k] == nil {
			cells[k] = map[string][]float64{}
			order = append(order, k)
		}
		cells[k][variant] = append(cells[k][variant], v)
	}
	for _, vr := range vs {
		for _, r := range vr.results {
			if r.IsControl() {
				continue
			}
			if r.Status != resultframe.StatusOK {
				label := "failed"
				if r.Attrs["not_applicable"] != "" {
					label = "not applicable"
				}
				k := rowKey{recipe: r.Recipe, test: r.Name, cas: r.Case, label: label}
				if failures[k] == nil {
					failures[k] = map[string]int{}
					order = append(order, k)
				}
				failures[k][vr.name]++
				continue
			}
			rep := summaryOf(r.Recipe)
			if len(rep.Outcomes) > 0 {
				for _, axis := range rep.Outcomes {
					a := axis.Attr
					k := rowKey{recipe: r.Recipe, test: r.Name, cas: r.Case, metric: a, label: a}
					if classes[k] == nil {
						classes[k] = map[string]map[string]int{}
						order = append(order, k)
					}
					if classes[k][vr.name] == nil {
						classes[k][vr.name] = map[string]int{}
					}
					counts, _ := rep.Classes(a, &r)
					for class, n := range counts {
						classes[k][vr.name][class] += n
					}
				}
				continue
			}
			if hs := rep.Headline; len(hs) > 0 {
				for _, h := range hs {
					for _, m := range r.Metrics {
						if m.Name == h.Metric {
							add(rowKey{r.Recipe, r.Name, r.Case, h.Metric, h.Label, h.Unit}, vr.name, m.Value*h.Scale)
						}
					}
				}
				continue
			}
			for _, m := range r.Metrics {
				add(rowKey{r.Recipe, r.Name, r.Case, m.Name, m.Name, m.Unit}, vr.name, m.Value)
			}
		}
	}
	if len(order) == 0 {
		fmt.Fprintln(w, "no results")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"test", "case", "metric", "unit"}
	for _, vr := range vs {
		head = append(head, vr.name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, k := range order {
		row := []string{k.recipe + "." + k.test, k.cas, k.label, k.unit}
		for _, vr := range vs {
			if f := failures[k]; f != nil {
				row = append(row, countCell(f[vr.name]))
				continue
			}
			if c := classes[k]; c != nil {
				row = append(row, classCell(c[vr.name]))
				continue
			}
			row = append(row, medianCell(cells[k][vr.name]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
}

// classCell counts the classes seen, most frequent first: "AutoFix 3 Clean 1".
func classCell(n map[string]int) string {
	if len(n) == 0 {
		return "-"
	}
	var names []string
	for c := range n {
		names = append(names, c)
	}
	sort.Slice(names, func(i, j int) bool {
		if n[names[i]] != n[names[j]] {
			return n[names[i]] > n[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, c := range names {
		parts = append(parts, fmt.Sprintf("%s %d", c, n[c]))
	}
	return strings.Join(parts, " ")
}

func countCell(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d", n)
}

func medianCell(vals []float64) string {
	if len(vals) == 0 {
		return "-"
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	text := formatNumber(med)
	if len(s) > 1 {
		text += fmt.Sprintf(" (n=%d)", len(s))
	}
	return text
}

func formatNumber(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
