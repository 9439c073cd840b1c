package report

import (
	"math"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The lifetime criterion ranks the years the flash model projects. The
// model replays one run's block trace, which gives the NAND's write
// amplification and the years at that run's bytes a day; the other runs
// of the case differ in how much the device wrote, so each run's years
// are the model's scaled by the bytes a day (years go as one over them),
// and the runs' years are compared by Welch's test as any metric is. A
// case whose candidates have no lifetime (no rated P/E cycles, no whole
// trace) is ranked by the bytes a day instead.

// lifetimeMetric and lifetimeUnit name the lifetime in a ranking.
const (
	lifetimeMetric = "lifetime, ideal wear leveling"
	lifetimeUnit   = "years"
)

// lifetimeRankings ranks each endurance case by the projected years where
// the model gives them, and by cr's metrics elsewhere.
func lifetimeRankings(t *table, runs []*enduranceRun, recipe string, cr recipes.Criterion, cases caseFilter) []*Ranking {
	type key struct {
		ctx       *Context
		test, cas string
	}
	byKey := map[key]*Ranking{}
	var out []*Ranking
	for _, run := range runs {
		if run.recipe != recipe || !cases.match(run.cas) {
			continue
		}
		k := key{run.ctx, run.test, run.cas}
		rk := byKey[k]
		if rk == nil {
			rk = &Ranking{Context: run.ctx, Criterion: cr.Name, Recipe: recipe, Test: run.test, Case: run.cas,
				Metric: lifetimeMetric, Unit: lifetimeUnit, Better: HigherIsBetter, p: welchP}
			byKey[k] = rk
			out = append(out, rk)
		}
		years, why := runYears(t, run)
		switch {
		case why != "":
			rk.Aside = append(rk.Aside, Failure{Variant: run.variant, Error: why})
		case len(years) < 2:
			rk.Unranked = append(rk.Unranked, run.variant)
		default:
			s := Summarize(years)
			rk.entries = append(rk.entries, Entry{Variant: run.variant, Value: s.Mean, N: s.N, sample: s})
		}
	}
	// A case where nobody has a lifetime is ranked by the bytes a day.
	var keep []*Ranking
	fallback := map[key]bool{}
	for _, rk := range out {
		if len(rk.entries) == 0 && len(rk.Unranked) == 0 {
			fallback[key{rk.Context, rk.Test, rk.Case}] = true
			continue
		}
		keep = append(keep, rk)
	}
	for _, rk := range metricRankings(t, recipe, cr, cases) {
		if _, modelled := byKey[key{rk.Context, rk.Test, rk.Case}]; !modelled || fallback[key{rk.Context, rk.Test, rk.Case}] {
			keep = append(keep, rk)
		}
	}
	return keep
}

// runYears is the projected years of each run of an endurance case, or
// why there are none.
func runYears(t *table, run *enduranceRun) ([]float64, string) {
	fm := run.model
	switch {
	case run.why != "":
		return nil, "no lifetime: " + run.why
	case fm.life == nil:
		return nil, "no lifetime: " + fm.lifeWhy
	case math.IsInf(fm.life.IdealYears, 1) || fm.hostDay <= 0:
		return nil, "no lifetime: the model's steady state erased nothing"
	}
	var years []float64
	for _, m := range t.measured {
		r := m.r
		if m.ctx != run.ctx || r.Recipe != run.recipe || r.Name != run.test || r.Case != run.cas || r.Variant != run.variant {
			continue
		}
		if day, ok := fm.hostDayOf(r); ok && day > 0 {
			years = append(years, fm.life.IdealYears*fm.hostDay/day)
		}
	}
	return years, ""
}

// hostDayOf is the device-level bytes a day of result r, as the model's
// lifetime counts them: the board's writes_per_day through r's own
// filesystem write amplification, else r's bytes to the device a day.
func (fm *flashModel) hostDayOf(r *resultframe.Result) (float64, bool) {
	dev, ok := metricOf(r, "device_bytes_per_day")
	if !ok {
		return 0, false
	}
	perDay, hasPerDay, err := attrInt(r, "flash_writes_per_day")
	if !hasPerDay || err != nil {
		return dev, true
	}
	work, ok := metricOf(r, "workload_bytes_per_day")
	if !ok || work <= 0 {
		return 0, false
	}
	return float64(perDay) * dev / work, true
}
