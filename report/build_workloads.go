package report

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// The line charts of the workload recipes: a rate against the block size
// (dd_sweep) and a latency distribution (fsync_latency).

// ddLine is one line of the rate chart.
type ddLine struct {
	s     series
	dir   recipes.Bar
	total int64
}

// rateChart draws a rate against the block size, one line per candidate,
// direction (one of bars, the first drawn solid, the others dashed) and
// file size, from the sizes in the case names (dd_sweep).
func (v *view) rateChart(recipe string, bars []recipes.Bar, test, key, title string) *Chart {
	// Lines run from the smallest block size to the largest, whatever
	// order the spec lists them in.
	cases := slices.Clone(v.cases[[2]string{recipe, test}])
	slices.SortStableFunc(cases, func(a, b string) int {
		ta, x, _ := ddCase(a)
		tb, y, _ := ddCase(b)
		return cmp.Or(cmp.Compare(x, y), cmp.Compare(ta, tb))
	})
	// A sweep of file sizes at one block size (the "10/50/100MiB" test)
	// is drawn against the file size instead.
	var bss []int64
	for _, c := range cases {
		if _, bs, ok := ddCase(c); ok && !slices.Contains(bss, bs) {
			bss = append(bss, bs)
		}
	}
	bySize := len(bss) == 1
	var lines []ddLine
	var ss []series
	var totals []int64
	var tools []string
	for _, dir := range bars {
		for _, s := range v.series {
			for _, c := range cases {
				total, _, ok := ddCase(c)
				r := v.row(recipe, test, c, s, dir.Metric)
				if !ok || r == nil {
					continue
				}
				lineTotal := total
				if bySize {
					lineTotal = 0
				}
				if l := (ddLine{s, dir, lineTotal}); !slices.Contains(lines, l) {
					lines = append(lines, l)
				}
				if !slices.Contains(ss, s) {
					ss = append(ss, s)
				}
				if !slices.Contains(totals, total) {
					totals = append(totals, total)
				}
				if r.Tool != "" && !slices.Contains(tools, r.Tool) {
					tools = append(tools, r.Tool)
				}
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slices.Sort(tools)
	bySize = bySize && len(totals) > 1
	xUnit, what := "block size", "rate against block size"
	if bySize {
		xUnit, what = "file size", "rate against file size ("+units.FormatSize(bss[0])+" blocks)"
	}
	lc := &svg.Lines{XUnit: xUnit, YUnit: "MB/s", XSizes: true}
	tab := &Table{Head: summaryHead("MB/s", false)}
	tab.Head[0] = xUnit
	colors, names := v.colors(ss), seriesNames(ss)
	for _, l := range lines {
		i := slices.Index(ss, l.s)
		name := names[i] + " " + l.dir.Label
		if len(totals) > 1 && !bySize {
			name += " " + units.FormatSize(l.total)
		}
		ls := svg.LineSeries{Name: name, Color: colors[i], Dashed: l.dir != bars[0]}
		for _, c := range cases {
			total, bs, _ := ddCase(c)
			r := v.row(recipe, test, c, l.s, l.dir.Metric)
			if r == nil || (!bySize && total != l.total) {
				continue
			}
			x := bs
			if bySize {
				x = total
			}
			p := svg.Point{X: float64(x), Y: r.Mean}
			if r.HasSpread {
				p.HasErr, p.ErrLow, p.ErrHig = true, r.CILow, r.CIHigh
			}
			ls.Points = append(ls.Points, p)
			tab.Rows = append(tab.Rows, summaryRow(units.FormatSize(x), name, r, 1, false))
		}
		lc.Series = append(lc.Series, ls)
	}
	return &Chart{Slug: key, Context: v.ctx, Title: title + ": " + what,
		Tools: tools, Lines: lc, Table: tab,
		Note: "Points: mean rate over the passes; whiskers: 95% confidence interval of the mean (Student t), " +
			"for points of two passes or more. Sizes on a logarithmic axis; reads dashed."}
}

// ddCase reads the file size and block size of a dd_sweep case: its name
// holds one word per sweep field, total then bs ("48MiB-4KiB"), or
// key=value pairs ("total=48MiB,bs=4KiB").
func ddCase(c string) (total, bs int64, ok bool) {
	var sizes []int64
	for _, w := range strings.FieldsFunc(c, func(r rune) bool { return r == '-' || r == ',' }) {
		if k, val, found := strings.Cut(w, "="); found {
			n, err := units.ParseSize(val)
			if err != nil {
				continue
			}
			switch k {
			case "total":
				total = n
			case "bs":
				bs = n
			}
			continue
		}
		if n, err := units.ParseSize(w); err == nil {
			sizes = append(sizes, n)
		}
	}
	switch {
	case bs > 0:
		return total, bs, true
	case len(sizes) == 2:
		return sizes[0], sizes[1], true
	case len(sizes) == 1:
		return 0, sizes[0], true
	}
	return 0, 0, false
}

var percentileMetric = regexp.MustCompile(`^p([0-9]+(\.[0-9]+)?)$`)

// latencyCDF draws the latency distribution of one case as a CDF, one
// line per candidate (barrier against nobarrier are two variants of the
// spec), from the min, mean, pNN and max metrics of the recipe.
func (v *view) latencyCDF(recipe, test, c, key, title string) *Chart {
	// The percentiles measured, in increasing order.
	var pcts []float64
	names := map[float64]string{}
	for _, r := range v.rows {
		if r.Recipe != recipe || r.Test != test || r.Case != c {
			continue
		}
		if m := percentileMetric.FindStringSubmatch(r.Metric); m != nil {
			p, _ := strconv.ParseFloat(m[1], 64)
			if _, ok := names[p]; !ok {
				names[p] = r.Metric
				pcts = append(pcts, p)
			}
		}
	}
	if len(pcts) == 0 {
		return nil
	}
	slices.Sort(pcts)
	lc := &svg.Lines{XUnit: "latency (us)", YUnit: "% of calls at or below", YMin: 0, YMax: 100}
	tab := &Table{Head: []string{"candidate", "n", "mean (us)", "min"}}
	for _, p := range pcts {
		tab.Head = append(tab.Head, names[p])
	}
	tab.Head = append(tab.Head, "max")
	var tools []string
	var ss []series
	for _, s := range v.series {
		if v.row(recipe, test, c, s, "mean") != nil {
			ss = append(ss, s)
		}
	}
	colors, labels := v.colors(ss), seriesNames(ss)
	for si, s := range ss {
		mean := v.row(recipe, test, c, s, "mean")
		if s.tool != "" && !slices.Contains(tools, s.tool) {
			tools = append(tools, s.tool)
		}
		var pts []svg.Point
		row := []string{labels[si], strconv.Itoa(mean.N), svg.Num(mean.Median)}
		add := func(metric string, y float64) {
			r := v.row(recipe, test, c, s, metric)
			if r == nil {
				row = append(row, "-")
				return
			}
			row = append(row, svg.Num(r.Median))
			if r.Median > 0 {
				pts = append(pts, svg.Point{X: r.Median, Y: y})
			}
		}
		add("min", 0)
		for _, p := range pcts {
			add(names[p], p)
		}
		add("max", 100)
		lc.Series = append(lc.Series, svg.LineSeries{Name: labels[si], Color: colors[si], Points: pts})
		tab.Rows = append(tab.Rows, row)
	}
	if len(lc.Series) == 0 {
		return nil
	}
	slices.Sort(tools)
	return &Chart{Slug: key, Context: v.ctx, Title: title,
		Tools: tools, Lines: lc, Table: tab,
		Note: "Each line joins the minimum (0%), the percentiles the recipe reports and the maximum (100%) of the " +
			"write+sync latency; each point is the median of that statistic over the iterations. Latency on a logarithmic axis."}
}
