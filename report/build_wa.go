package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// Write amplification at the filesystem's level: around every iteration of
// a test that writes (a recipe with AccountsIO), the runner counts the
// bytes the workload asked to write and the bytes the partition's block
// device wrote (docs/longevity.md). Their ratio is what the filesystem adds
// (journal, metadata, padding to blocks); the NAND's own amplification
// (garbage collection, partial pages) comes on top, and the lifetime
// section models it.

// hostGuestLimit is the largest difference between the emulator's count of
// the disk's bytes and the guest's that the cross-check accepts, in
// percent: beyond it the guest's counters missed or added writes.
const hostGuestLimit = 1.0

// waGroup is one bar group of the chart: a test case of a recipe that
// accounts its I/O, measured with one tool.
type waGroup struct {
	label                   string
	recipe, test, cas, tool string
}

const noteWA = "Bars: median over the iterations of write_amplification, the bytes the partition's block device wrote " +
	"(counted after sync) over the bytes the workload asked to write. It is the filesystem's amplification alone " +
	"(journal, metadata, padding to blocks); the NAND's own amplification (garbage collection, partial pages) comes " +
	"on top: see Lifetime."

// waGroups lists the test cases that measured write_amplification, in the
// catalogue's order of recipes, then of tests and cases.
func (v *view) waGroups() []waGroup {
	var out []waGroup
	for _, name := range recipes.Order() {
		if !recipeByName()[name].AccountsIO {
			continue
		}
		for _, test := range v.tests[name] {
			for _, cas := range v.cases[[2]string{name, test}] {
				var tools []string
				for _, r := range v.rows {
					if r.Recipe == name && r.Test == test && r.Case == cas && r.Metric == "write_amplification" {
						addUnique(&tools, r.Tool)
					}
				}
				for _, tool := range tools {
					label := caseLabel(name, test, cas)
					if len(tools) > 1 && tool != "" {
						label += " (" + tool + ")"
					}
					out = append(out, waGroup{label, name, test, cas, tool})
				}
			}
		}
	}
	return out
}

// waRow returns the row of a metric of candidate variant in group g.
func (v *view) waRow(g waGroup, variant, metric string) *Row {
	return v.byKey[rowKey{v.ctx.ID, g.recipe, g.test, g.cas, variant, g.tool, metric}]
}

// attrValues returns the distinct values attribute key takes over the
// iterations of a candidate's test case, in the order of the inputs.
func (v *view) attrValues(recipe, test, cas, variant, tool, key string) []string {
	var out []string
	for _, m := range v.measured {
		r := m.r
		if r.Recipe == recipe && r.Name == test && r.Case == cas && r.Variant == variant && m.tool == tool {
			if val, ok := r.Attrs[key]; ok {
				addUnique(&out, val)
			}
		}
	}
	return out
}

// writeAmplification is the section of the context's filesystem-level
// write amplification, or nil when no test measured it.
func (v *view) writeAmplification() *Section {
	groups := v.waGroups()
	if len(groups) == 0 {
		return nil
	}
	var variants []string
	for _, variant := range v.ctx.Variants {
		for _, g := range groups {
			if v.waRow(g, variant, "write_amplification") != nil {
				variants = append(variants, variant)
				break
			}
		}
	}
	ss := make([]series, len(variants))
	for i, variant := range variants {
		ss[i] = series{variant: variant}
	}
	hasHost := false
	for _, g := range groups {
		for _, variant := range variants {
			hasHost = hasHost || v.waRow(g, variant, "host_guest_difference") != nil
		}
	}
	bc := &svg.Bars{Unit: "x", YLabel: "write amplification (x)", XLabel: "test case", Series: variants, Colors: v.colors(ss)}
	tab := &Table{Head: []string{"test case", "candidate", "n", "workload (MiB)", "device (MiB)", "write amplification (x)",
		"disk flushes", "discards (MiB)", "filesystem threads (share of device bytes)", "writers (last iteration)"}}
	if hasHost {
		tab.Head = append(tab.Head, "host − guest (disk bytes)")
	}
	ch := &Chart{Context: v.ctx, Title: "Write amplification per filesystem and workload (device bytes / workload bytes)",
		Slug: "write-amplification", Note: noteWA, Bars: bc, Table: tab}
	var failed []string
	for _, g := range groups {
		bc.Groups = append(bc.Groups, g.label)
		cells := make([]svg.BarCell, len(variants))
		for i, variant := range variants {
			wa := v.waRow(g, variant, "write_amplification")
			if wa == nil {
				cells[i].Missing, _, _ = v.missing(g.recipe, g.test, g.cas, variant)
				continue
			}
			cells[i] = svg.BarCell{Has: true, Value: wa.Median}
			row := v.waTableRow(g, variant, wa)
			if hasHost {
				cell, worst, bad := v.hostGuestCell(g, variant)
				row = append(row, cell)
				if bad {
					cells[i].Label = "host ≠ guest"
					failed = append(failed, g.label+" ("+variant+", "+signedPct(worst/100)+" in its worst iteration)")
				}
			}
			tab.Rows = append(tab.Rows, row)
			ch.draws = append(ch.draws, [4]string{g.recipe, g.test, g.cas, "write_amplification"})
		}
		bc.Cells = append(bc.Cells, cells)
	}
	s := &Section{ID: v.ctx.ID + "-write-amplification", Title: "Write amplification", Context: v.ctx}
	s.text("Write amplification here is the filesystem's: the bytes the partition's block device wrote over the bytes " +
		"the workload asked to write, both counted around each iteration (after sync). The NAND's own amplification " +
		"comes on top of it; the lifetime section models it from the endurance test's block trace.")
	if len(failed) > 0 {
		s.warn("The cross-check failed: the emulator's count of the bytes written to the disk differs from the guest's by " +
			"more than " + limitText + " in " + strings.Join(failed, "; ") + ". The guest's counters missed or " +
			"added writes there, so the device bytes and the write amplification of those cases are in doubt.")
	}
	s.chart(ch)
	if notes := v.hostNotes(groups, variants); len(notes) > 0 {
		s.list("Host counters:", notes)
	}
	return s
}

// waMedian is the median of metric over the candidate's iterations in
// group g that have a write amplification: the iterations the row's
// amplification is the median of (a mount_time writes only in its
// first). ok is false when none of them has the metric.
func (v *view) waMedian(g waGroup, variant, metric string) (median float64, ok bool) {
	var vals []float64
	for _, m := range v.measured {
		r := m.r
		if r.Recipe != g.recipe || r.Name != g.test || r.Case != g.cas || r.Variant != variant || m.tool != g.tool || m.ctx != v.ctx {
			continue
		}
		val, has, hasWA := 0.0, false, false
		for _, x := range r.Metrics {
			switch x.Name {
			case metric:
				val, has = x.Value, true
			case "write_amplification":
				hasWA = true
			}
		}
		if has && hasWA {
			vals = append(vals, val)
		}
	}
	if len(vals) == 0 {
		return 0, false
	}
	return Summarize(vals).Median, true
}

// waTableRow is a candidate's row of the table: medians over the
// iterations that have a write amplification, and what is not available
// said as such, never as a zero.
func (v *view) waTableRow(g waGroup, variant string, wa *Row) []string {
	mib := func(metric string) string {
		if m, ok := v.waMedian(g, variant, metric); ok {
			return svg.Num(m / (1 << 20))
		}
		return "-"
	}
	counted := func(metric string) string {
		if m, ok := v.waMedian(g, variant, metric); ok {
			return count(m)
		}
		return "-"
	}
	last := v.lastAttr(g, variant, "io_writers")
	share := "-"
	fs, okFS := v.waMedian(g, variant, "fs_thread_write_bytes")
	dev, okDev := v.waMedian(g, variant, "device_write_bytes")
	switch {
	case okFS && okDev && dev > 0:
		share = pct(100 * fs / dev)
	case strings.HasPrefix(last, "not available"):
		share = last
	}
	return []string{g.label, variant, nText(wa), mib("workload_write_bytes"), mib("device_write_bytes"), svg.Num(wa.Median),
		counted("disk_flushes"), mib("device_discard_bytes"), share, last}
}

// lastAttr is attribute key of the candidate's last iteration in group g.
func (v *view) lastAttr(g waGroup, variant, key string) string {
	iter, val := -1, "not recorded"
	for _, m := range v.measured {
		r := m.r
		if r.Recipe == g.recipe && r.Name == g.test && r.Case == g.cas && r.Variant == variant && m.tool == g.tool && r.Iteration > iter {
			if a, ok := r.Attrs[key]; ok {
				iter, val = r.Iteration, a
			}
		}
	}
	return val
}

// hostGuestCell is the cross-check of a candidate's case: the median
// difference, and the worst iteration when it is beyond hostGuestLimit.
func (v *view) hostGuestCell(g waGroup, variant string) (cell string, worst float64, bad bool) {
	r := v.waRow(g, variant, "host_guest_difference")
	if r == nil {
		vals := v.attrValues(g.recipe, g.test, g.cas, variant, g.tool, "host_counters")
		if len(vals) > 0 {
			return strings.Join(vals, "; "), 0, false
		}
		return "not recorded", 0, false
	}
	worst = r.Max
	if math.Abs(r.Min) > math.Abs(r.Max) {
		worst = r.Min
	}
	if math.Abs(worst) > hostGuestLimit {
		return "✗ cross-check failed: " + signedPct(worst/100) + " in the worst iteration (median " + signedPct(r.Median/100) + ")", worst, true
	}
	return signedPct(r.Median/100) + " (within ±" + limitText + ")", worst, false
}

// limitText is hostGuestLimit as the report writes it.
var limitText = strconv.FormatFloat(hostGuestLimit, 'f', -1, 64) + "%"

// caseLabel names a test case across recipes: "fio.write
// randwrite-4KiB-direct", "endurance.day" for a test of one case.
func caseLabel(recipe, test, cas string) string {
	s := recipe + "." + test
	if cas != "" && cas != recipes.SingleCase {
		s += " " + cas
	}
	return s
}

// count writes a count (a median may fall between two).
func count(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return svg.Num(v)
}

// hostNotes says where the host's counters came from, or why there were
// none, once per distinct value.
func (v *view) hostNotes(groups []waGroup, variants []string) []string {
	var notes []string
	for _, g := range groups {
		for _, variant := range variants {
			for _, val := range v.attrValues(g.recipe, g.test, g.cas, variant, g.tool, "host_counters") {
				addUnique(&notes, val)
			}
		}
	}
	slices.Sort(notes)
	return notes
}
