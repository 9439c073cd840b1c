package report

import (
	"cmp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The lifetime section: the endurance test's block trace of a compressed
// day, replayed on a model of the flash (flash_model.go), gives the NAND's
// write amplification on top of the filesystem's, the erases per GiB, and
// with the board's endurance block a projected lifetime; the bytes to
// flash a day are drawn beside the NAND's.

// enduranceRun is one candidate's test case that recorded a block trace.
type enduranceRun struct {
	ctx                        *Context
	recipe, test, cas, variant string
	// r is the iteration modelled (the last whose trace is whole), or
	// the last iteration when none is.
	r *resultframe.Result
	// incomplete lists the later iterations whose trace was not whole.
	incomplete []string
	// why says why the run is not modelled.
	why   string
	model *flashModel
}

func (e *enduranceRun) label() string { return caseLabel(e.recipe, e.test, e.cas) }

// traceLost says why a result's trace cannot be modelled, or "" when it is
// whole.
func traceLost(r *resultframe.Result) string {
	lost, hasLost := r.Attrs["block_trace_lost"]
	_, hasTrace := r.Attrs["block_trace"]
	switch {
	case strings.HasPrefix(lost, "not available: "):
		return "no trace was recorded (" + strings.TrimPrefix(lost, "not available: ") + ")"
	case hasLost && lost != "0":
		return "the trace is incomplete (" + lost + ")"
	case !hasTrace:
		return "the result carries no trace"
	}
	return ""
}

// enduranceRuns finds the results that carry a block trace (or say why
// they lost it), one run per candidate and test case, in the catalogue's
// order of recipes, then of tests, cases and variants.
func (v *view) enduranceRuns() []*enduranceRun {
	type key struct{ recipe, test, cas, variant string }
	byKey := map[key][]*resultframe.Result{}
	var keys []key
	for _, m := range v.measured {
		r := m.r
		if _, ok := r.Attrs["block_trace"]; !ok {
			if _, ok := r.Attrs["block_trace_lost"]; !ok {
				continue
			}
		}
		k := key{r.Recipe, r.Name, r.Case, r.Variant}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	order := recipes.Order()
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.recipe), slices.Index(order, b.recipe)),
			cmp.Compare(slices.Index(v.tests[a.recipe], a.test), slices.Index(v.tests[b.recipe], b.test)),
			cmp.Compare(slices.Index(v.cases[[2]string{a.recipe, a.test}], a.cas), slices.Index(v.cases[[2]string{b.recipe, b.test}], b.cas)),
			cmp.Compare(slices.Index(v.ctx.Variants, a.variant), slices.Index(v.ctx.Variants, b.variant)))
	})
	var out []*enduranceRun
	for _, k := range keys {
		rs := byKey[k]
		slices.SortStableFunc(rs, func(a, b *resultframe.Result) int { return cmp.Compare(a.Iteration, b.Iteration) })
		run := &enduranceRun{ctx: v.ctx, recipe: k.recipe, test: k.test, cas: k.cas, variant: k.variant, r: rs[len(rs)-1]}
		for i := len(rs) - 1; i >= 0; i-- {
			why := traceLost(rs[i])
			if why == "" {
				run.r = rs[i]
				break
			}
			run.incomplete = append(run.incomplete, "iteration "+strconv.Itoa(rs[i].Iteration)+": "+why)
		}
		if why := traceLost(run.r); why != "" {
			run.why, run.incomplete = why, nil
		}
		out = append(out, run)
	}
	return out
}

// modelRuns runs the model of every run with a whole trace, as many at
// once as there are processors (each holds its device's mapping tables):
// the models share nothing, and each is deterministic.
func modelRuns(runs []*enduranceRun) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, run := range runs {
		if run.why != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			fm, err := modelResult(run.r)
			if err != nil {
				run.why = joinWhy(err)
				return
			}
			run.model = fm
		}()
	}
	wg.Wait()
}

// lifetime is the context's lifetime section and its runs, or nil when
// no result carries a block trace.
func (v *view) lifetime() (*Section, []*enduranceRun) {
	runs := v.enduranceRuns()
	if len(runs) == 0 {
		return nil, nil
	}
	modelRuns(runs)
	s := &Section{ID: v.ctx.ID + "-lifetime", Title: "Lifetime", Context: v.ctx}
	s.text("The endurance test records every request its compressed day sent to the partition. Replayed on a model of " +
		"the flash translation layer (page mapping, greedy garbage collection, a one-page write buffer; package ftl) until " +
		"its write amplification is steady, the trace gives what the NAND would program and erase: the NAND's write " +
		"amplification, which multiplies the filesystem's, and with the board's rated P/E cycles a projected lifetime. " +
		"It is a model, not a measurement: a real eMMC's firmware differs, so compare candidates on the same assumptions, " +
		"listed beside each figure, rather than trust the years.")
	if ch := v.perDayChart(runs); ch != nil {
		s.chart(ch)
	}
	s.table(lifetimeTable(runs), "Lifetime per candidate: the filesystem's write amplification (measured) times the NAND's (model).")
	for _, run := range runs {
		s.heading(run.variant + " · " + run.label())
		for _, inc := range run.incomplete {
			s.text("Not modelled: " + inc + "; the figures are those of iteration " + strconv.Itoa(run.r.Iteration) + ".")
		}
		if run.why != "" {
			s.warn("Not modelled: " + run.why + ".")
			continue
		}
		fm := run.model
		s.table(fm.figures(), "")
		if fm.life == nil {
			s.text("No lifetime: " + fm.lifeWhy + ".")
		}
		s.list("Assumptions:", fm.assumptions)
	}
	return s, runs
}

// figures is the table of one model's figures.
func (fm *flashModel) figures() *Table {
	t := &Table{Head: []string{"figure", "value"}}
	add := func(name, value string) { t.Rows = append(t.Rows, []string{name, value}) }
	add("bytes to the partition a day (measured)", sizeText(fm.deviceDay))
	if fm.fsWA > 0 {
		add("filesystem write amplification (measured: device bytes / workload bytes)", svg.Num(fm.fsWA))
	} else {
		add("filesystem write amplification (measured: device bytes / workload bytes)", "not measured")
	}
	add("NAND write amplification (model)", svg.Num(fm.res.WriteAmplification))
	if fm.fsWA > 0 {
		add("total write amplification (filesystem × NAND)", svg.Num(fm.fsWA*fm.res.WriteAmplification))
	}
	add("bytes to the NAND a day (model)", sizeText(fm.nandDay))
	add("erases per GiB written to the device (model)", svg.Num(fm.erasesPerGiB()))
	add("NAND bytes a flush forced before their page was full (model)", fm.flushShare())
	if l := fm.life; l != nil {
		add("lifetime, ideal wear leveling (mean block reaches its rated cycles)", years(l.IdealYears))
		add("lifetime, most-worn block (the model's own wear leveling)", years(l.WorstYears))
		add("wear skew (most-worn block / mean block)", svg.Num(l.WearSkew))
	}
	return t
}

// lifetimeTable sets the candidates side by side.
func lifetimeTable(runs []*enduranceRun) *Table {
	t := &Table{Head: []string{"candidate", "test case", "iteration", "to the partition a day", "filesystem WA (x)",
		"NAND WA (x, model)", "total WA (x)", "erases per GiB", "lifetime, ideal", "lifetime, most-worn block"}}
	for _, run := range runs {
		row := []string{run.variant, run.label(), strconv.Itoa(run.r.Iteration)}
		fm := run.model
		if fm == nil {
			t.Rows = append(t.Rows, append(row, "not modelled: "+run.why, "", "", "", "", "", ""))
			continue
		}
		fsWA, total := "not measured", "-"
		if fm.fsWA > 0 {
			fsWA, total = svg.Num(fm.fsWA), svg.Num(fm.fsWA*fm.res.WriteAmplification)
		}
		ideal, worst := "no rated P/E cycles", "-"
		if fm.life != nil {
			ideal, worst = years(fm.life.IdealYears), years(fm.life.WorstYears)
		}
		t.Rows = append(t.Rows, append(row, sizeText(fm.deviceDay), fsWA, svg.Num(fm.res.WriteAmplification), total,
			svg.Num(fm.erasesPerGiB()), ideal, worst))
	}
	return t
}

// perDayChart draws, per candidate, the bytes the partition's device
// wrote a day and the bytes the NAND would program for them.
func (v *view) perDayChart(runs []*enduranceRun) *Chart {
	type group struct{ recipe, test, cas, label string }
	var groups []group
	var variants []string
	for _, run := range runs {
		if _, ok := metricOf(run.r, "device_bytes_per_day"); !ok {
			continue
		}
		g := group{run.recipe, run.test, run.cas, run.label()}
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
		addUnique(&variants, run.variant)
	}
	if len(groups) == 0 {
		return nil
	}
	slices.SortStableFunc(variants, func(a, b string) int {
		return slices.Index(v.ctx.Variants, a) - slices.Index(v.ctx.Variants, b)
	})
	ss := make([]series, len(variants))
	for i, variant := range variants {
		ss[i] = series{variant: variant}
	}
	bc := &svg.Bars{Unit: "MiB", YLabel: "bytes a day (MiB)", XLabel: "where the bytes land", Series: variants, Colors: v.colors(ss)}
	tab := &Table{Head: []string{"group", "candidate", "iteration", "MiB a day", "from"}}
	const mib = 1 << 20
	for _, g := range groups {
		prefix := ""
		if len(groups) > 1 {
			prefix = g.label + ": "
		}
		dev, nand := make([]svg.BarCell, len(variants)), make([]svg.BarCell, len(variants))
		for i, variant := range variants {
			k := slices.IndexFunc(runs, func(r *enduranceRun) bool {
				return r.recipe == g.recipe && r.test == g.test && r.cas == g.cas && r.variant == variant
			})
			if k < 0 {
				continue
			}
			run := runs[k]
			it := strconv.Itoa(run.r.Iteration)
			if d, ok := metricOf(run.r, "device_bytes_per_day"); ok {
				dev[i] = svg.BarCell{Has: true, Value: d / mib}
				tab.Rows = append(tab.Rows, []string{prefix + "to the partition", variant, it, svg.Num(d / mib), "device_bytes_per_day (measured)"})
			}
			if run.model == nil {
				nand[i].Missing = "not modelled"
				tab.Rows = append(tab.Rows, []string{prefix + "to the NAND", variant, it, "", "not modelled: " + run.why})
				continue
			}
			nand[i] = svg.BarCell{Has: true, Value: run.model.nandDay / mib}
			tab.Rows = append(tab.Rows, []string{prefix + "to the NAND", variant, it, svg.Num(run.model.nandDay / mib),
				"device_bytes_per_day × NAND write amplification " + svg.Num(run.model.res.WriteAmplification) + " (model)"})
		}
		bc.Groups = append(bc.Groups, prefix+"to the partition", prefix+"to the NAND")
		bc.Cells = append(bc.Cells, dev, nand)
	}
	return &Chart{Context: v.ctx, Title: "Bytes to flash per day (MiB a day)", Slug: "bytes-to-flash-per-day", Bars: bc, Table: tab,
		Note: "Bars: the iteration the lifetime section models (the last whose trace is whole; else the last): the bytes " +
			"the partition's block device wrote, scaled to a day (filesystem level), and the bytes the NAND would program " +
			"for them, garbage collection and partial pages included (the flash model). No whiskers: one iteration each."}
}
