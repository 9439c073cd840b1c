package report

import (
	"slices"
	"strings"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// The study compares boot time between kernel versions (seed 000 p.66-67)
// and storage supports (p.68). Here a kernel or a storage device is a
// context, with a section of its own. The charts below set one test's
// values of every context side by side, one group of bars per context,
// without pooling them.

// acrossID names the context of the charts across contexts.
const acrossID = "all"

// acrossCharts draws the charts the recipes mark Across (boot time and its
// variation) across the contexts of t, when there are several. The returned context holds the attributes
// every context shares; the others name the groups.
func acrossCharts(t *table) (*Context, []*Chart) {
	if len(t.contexts) < 2 {
		return nil, nil
	}
	across := &Context{ID: acrossID}
	var differ []Attr // the attributes whose values name the groups
	for i, a := range t.contexts[0].Attrs {
		same := true
		for _, c := range t.contexts[1:] {
			same = same && c.Attrs[i].Value == a.Value
		}
		if same {
			across.Attrs = append(across.Attrs, a)
		} else {
			across.Attrs = append(across.Attrs, Attr{Key: a.Key, Label: a.Label})
			differ = append(differ, a)
		}
	}
	differ = namingAttrs(differ, t.contexts)
	for _, c := range t.contexts {
		for _, v := range c.Variants {
			addUnique(&across.Variants, v)
		}
	}
	var labels []string
	for _, a := range differ {
		labels = append(labels, a.Label)
	}
	by := " by " + strings.Join(labels, ", ")

	b := acrossBuilder{t: t, ctx: across, differ: differ}
	var out []*Chart
	for _, name := range recipes.Order() {
		rec := recipeByName()[name]
		for _, test := range b.tests(rec.Name) {
			for _, ch := range rec.Report.Charts {
				if ch.Kind == recipes.Bars && ch.Across && len(ch.Bars) > 0 {
					out = appendChart(out, b.recipeCharts(rec.Name, ch, test, by)...)
				}
			}
		}
	}
	return across, out
}

// recipeCharts draws one chart across the contexts of a recipe's Across
// chart: of each bar's metric alone (titled after the chart's title up to
// its colon, then the bar's label), or for a chart of the coefficient of
// variation, of its first bar measured in two contexts or more.
func (b *acrossBuilder) recipeCharts(recipe string, ch recipes.Chart, test, by string) []*Chart {
	stem, _, _ := strings.Cut(named(ch.Title, test, "", ""), ":")
	slugOf := named(ch.Slug, test, "", "")
	if ch.CV {
		spec := barSpec{key: slugOf, title: stem + " variation" + by, recipe: recipe, test: test, cv: true}
		for _, bar := range ch.Bars {
			spec.groups = []barGroup{{metric: bar.Metric}}
			if b.contextsWith(spec) >= 2 {
				break
			}
		}
		return appendChart(nil, b.chart(spec))
	}
	var out []*Chart
	for _, bar := range ch.Bars {
		spec := barSpec{key: slugOf + "-" + bar.Slug, title: stem + by + ": " + bar.Label, recipe: recipe, test: test,
			groups: []barGroup{{metric: bar.Metric}}}
		if ch.CVLabels {
			spec.label = cvLabel
		}
		out = appendChart(out, b.chart(spec))
	}
	return out
}

// namingAttrs keeps, of the attributes in which contexts differ, those
// that tell a reader what changed: the kernel package goes with the
// kernel, a QEMU machine that differs only by its disk with the storage
// device, and the spec's fingerprint and the runner's version only name a
// context when nothing else does.
func namingAttrs(differ []Attr, cs []*Context) []Attr {
	has := func(keys ...string) bool {
		return slices.ContainsFunc(differ, func(a Attr) bool { return slices.Contains(keys, a.Key) })
	}
	machineIsDisk := has("disk")
	machine0 := strings.TrimSuffix(cs[0].Value("machine"), " "+cs[0].Value("disk"))
	for _, c := range cs {
		machineIsDisk = machineIsDisk && strings.TrimSuffix(c.Value("machine"), " "+c.Value("disk")) == machine0
	}
	var out []Attr
	for _, a := range differ {
		switch {
		case a.Key == "kernel_package" && has("kernel"):
		case a.Key == "machine" && machineIsDisk:
		case (a.Key == "fingerprint" || a.Key == "runner") &&
			has("target", "board", "machine", "accel", "disk", "kernel", "kernel_package"):
		default:
			out = append(out, a)
		}
	}
	return out
}

// acrossBuilder draws bar charts whose groups are contexts.
type acrossBuilder struct {
	t      *table
	ctx    *Context
	differ []Attr
}

// tests lists the tests of recipe in the order they first appear.
func (b *acrossBuilder) tests(recipe string) []string {
	var out []string
	for _, r := range b.t.rows {
		if r.Recipe == recipe {
			addUnique(&out, r.Test)
		}
	}
	return out
}

// rows returns the rows of spec's metric in context c, by case then variant.
func (b *acrossBuilder) rows(spec barSpec, c *Context) []*Row {
	var out []*Row
	for _, r := range b.t.rows {
		if r.Context == c && r.Recipe == spec.recipe && r.Test == spec.test && r.Metric == spec.groups[0].metric &&
			(!spec.cv || r.HasCV) {
			out = append(out, r)
		}
	}
	return out
}

func (b *acrossBuilder) contextsWith(spec barSpec) int {
	n := 0
	for _, c := range b.t.contexts {
		if len(b.rows(spec, c)) > 0 {
			n++
		}
	}
	return n
}

// groupLabel names context c by the attributes that differ: "A: 6.1.0-50-amd64".
func (b *acrossBuilder) groupLabel(c *Context) string {
	var vals []string
	for _, a := range b.differ {
		vals = append(vals, orNone(c.Value(a.Key)))
	}
	return c.ID + ": " + strings.Join(vals, ", ")
}

// chart draws spec's one metric with a group per context and test case,
// or nil when fewer than two contexts measured it.
func (b *acrossBuilder) chart(spec barSpec) *Chart {
	if b.contextsWith(spec) < 2 {
		return nil
	}
	var cases, variants, tools []string
	var unit string
	var peak float64
	for _, c := range b.t.contexts {
		rows := b.rows(spec, c)
		for _, p := range b.t.problems {
			// A candidate whose every run failed shows as failed.
			if len(rows) > 0 && p.Context == c && p.Recipe == spec.recipe && p.Test == spec.test {
				addUnique(&variants, p.Variant)
			}
		}
		for _, r := range rows {
			addUnique(&cases, r.Case)
			addUnique(&variants, r.Variant)
			if r.Tool != "" {
				addUnique(&tools, r.Tool)
			}
			unit = r.Unit
			peak = max(peak, r.Max, r.CIHigh)
		}
	}
	slices.Sort(tools)
	slices.SortStableFunc(variants, func(x, y string) int {
		return slices.Index(b.ctx.Variants, x) - slices.Index(b.ctx.Variants, y)
	})
	factor, shown := scaleFor(unit, peak)
	if spec.cv {
		factor, shown = 1, "CV %"
	}
	bc := &svg.Bars{Unit: shown, Series: variants}
	for i := range variants {
		bc.Colors = append(bc.Colors, palette[i%len(palette)])
	}
	head := summaryHead(shown, spec.cv)
	if !spec.cv {
		head = head[:len(head)-1] // "vs best" compares within a context
	}
	tab := &Table{Head: head}
	for _, c := range b.t.contexts {
		rows := b.rows(spec, c)
		if len(rows) == 0 {
			continue
		}
		for _, cas := range cases {
			label := b.groupLabel(c)
			if len(cases) > 1 {
				label += " " + cas
			}
			bc.Groups = append(bc.Groups, label)
			cells := make([]svg.BarCell, len(variants))
			for i, v := range variants {
				k := slices.IndexFunc(rows, func(r *Row) bool { return r.Case == cas && r.Variant == v })
				if k < 0 {
					why, failed, skipped := missingIn(b.t.problems, c, spec.recipe, spec.test, cas, v)
					cells[i].Missing = why
					if why != "" {
						tab.Rows = append(tab.Rows, missingRow(label, v, &Row{Failed: failed, Skipped: skipped}, len(tab.Head)))
					}
					continue
				}
				r := rows[k]
				cells[i] = spec.cell(r, factor)
				row := summaryRow(label, v, r, factor, spec.cv)
				if !spec.cv {
					row = row[:len(row)-1]
				}
				tab.Rows = append(tab.Rows, row)
			}
			bc.Cells = append(bc.Cells, cells)
		}
	}
	note := noteBars
	if spec.cv {
		note = noteCV
	}
	note += " Each group is one context (see the Contexts table): its values are those of the context's own charts, " +
		"set side by side and never pooled."
	return &Chart{Context: b.ctx, Title: spec.title, Tools: tools, Note: note, Bars: bc, Table: tab, Slug: spec.key}
}
