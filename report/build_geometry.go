package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The flash geometry and health section: what the storage says about
// itself (an eMMC's EXT_CSD, an SD card's CSD and SD Status, sysfs) and
// what a flashbench-style probe measured, read by the flash_info test,
// typically before and after a campaign. A fact the device does not state
// is "not available" with the reason, never a zero.

// geometryFact is one row of the table: a label, the fact's key (a metric
// or an attribute of the result), and whether it is health, whose change
// over a campaign the section points out.
type geometryFact struct {
	label, key string
	health     bool
}

var geometryFacts = []geometryFact{
	{"card type", "card_type", false},
	{"card name", "card_name", false},
	{"manufacturer", "manufacturer", false},
	{"capacity", "capacity", false},
	{"stated erase unit", "stated_erase_unit", false},
	{"probe estimate of the erase block", "probe_erase_block", false},
	{"spec erase_block (the partition's geometry)", "spec_erase_block", false},
	{"life time estimate A", "life_time_est_a", true},
	{"life time estimate B", "life_time_est_b", true},
	{"pre-EOL information", "pre_eol_info", true},
}

// factText is a fact of r as a reader reads it: a size in the spec's
// units, a code with its meaning, or the reason it is not available.
func factText(r *resultframe.Result, key string) string {
	attr, hasAttr := r.Attrs[key]
	if key == "probe_erase_block" {
		attr, hasAttr = r.Attrs["probe"]
	}
	v, hasMetric := metricOf(r, key)
	unit := ""
	for _, m := range r.Metrics {
		if m.Name == key {
			unit = m.Unit
		}
	}
	switch {
	case hasAttr && !hasMetric:
		return attr
	case hasMetric && (unit == "bytes" || unit == "B"):
		s := sizeText(v)
		if hasAttr && key == "probe_erase_block" {
			s += ": " + attr
		}
		return s
	case hasMetric && hasAttr:
		return attr // a code and its meaning: "0x01 (0-10% of life used)"
	case hasMetric:
		return strings.TrimSpace(svg.Num(v) + " " + unit)
	}
	return "not recorded"
}

// flashReading is one variant's flash_info results: the last iteration of
// each test case, in order.
type flashReading struct {
	variant string
	columns []string // test case names
	rs      []*resultframe.Result
}

// flashReadings finds the results that say what the storage states of its
// erase unit (the flash_info recipe's), per variant.
func (v *view) flashReadings() []*flashReading {
	byVariant := map[string]*flashReading{}
	for _, m := range v.measured {
		r := m.r
		_, metric := metricOf(r, "stated_erase_unit")
		_, attr := r.Attrs["stated_erase_unit"]
		if !metric && !attr {
			continue
		}
		fr := byVariant[r.Variant]
		if fr == nil {
			fr = &flashReading{variant: r.Variant}
			byVariant[r.Variant] = fr
		}
		col := r.Name
		if r.Case != "" && r.Case != recipes.SingleCase {
			col += " " + r.Case
		}
		if i := slices.Index(fr.columns, col); i >= 0 {
			if r.Iteration >= fr.rs[i].Iteration {
				fr.rs[i] = r
			}
			continue
		}
		fr.columns = append(fr.columns, col)
		fr.rs = append(fr.rs, r)
	}
	var out []*flashReading
	for _, variant := range v.ctx.Variants {
		if fr := byVariant[variant]; fr != nil {
			out = append(out, fr)
		}
	}
	return out
}

// table is the reading's facts, a column per test case, and the source
// of each as the first reading gives it.
func (fr *flashReading) table() *Table {
	t := &Table{Head: append(append([]string{"fact"}, fr.columns...), "source")}
	for _, f := range geometryFacts {
		row := []string{f.label}
		for _, r := range fr.rs {
			row = append(row, factText(r, f.key))
		}
		src := fr.rs[0].Attrs[f.key+".source"]
		switch f.key {
		case "probe_erase_block":
			src = "timed reads across power-of-two boundaries (flashbench)"
		case "spec_erase_block":
			src = "the spec's geometry block of the partition's filesystem"
		}
		t.Rows = append(t.Rows, append(row, cmp.Or(src, "-")))
	}
	return t
}

// changes says which health facts changed between the first and the last
// reading.
func (fr *flashReading) changes() []string {
	if len(fr.rs) < 2 {
		return nil
	}
	first, last := fr.rs[0], fr.rs[len(fr.rs)-1]
	var out []string
	for _, f := range geometryFacts {
		if a, b := factText(first, f.key), factText(last, f.key); f.health && a != b {
			out = append(out, f.label+" went from "+a+" ("+fr.columns[0]+") to "+b+" ("+fr.columns[len(fr.columns)-1]+")")
		}
	}
	return out
}

// firstMetric is the first reading's value of a metric, if any has one.
func (fr *flashReading) firstMetric(key string) (float64, *resultframe.Result) {
	for _, r := range fr.rs {
		if v, ok := metricOf(r, key); ok {
			return v, r
		}
	}
	return 0, nil
}

// warnings compares what the device states and what the probe found with
// the spec's erase block, and names the tuning a measured one would give.
// A spec without an erase block gets notes, not warnings.
func (fr *flashReading) warnings() (warns, notes []string) {
	spec, _ := fr.firstMetric("spec_erase_block")
	stated, sr := fr.firstMetric("stated_erase_unit")
	probed, pr := fr.firstMetric("probe_erase_block")
	type claim struct {
		size float64
		who  string
		r    *resultframe.Result
	}
	var claims []claim
	if sr != nil {
		claims = append(claims, claim{stated, statesText(sr, stated), sr})
	}
	if pr != nil {
		who := "the probe finds a " + sizeText(probed) + " erase block (" + pr.Attrs["probe"] + ")"
		if len(claims) > 0 && claims[0].size == probed {
			claims[0].who += ", and the probe finds the same"
		} else {
			claims = append(claims, claim{probed, who, pr})
		}
	}
	for _, c := range claims {
		if spec > 0 && c.size == spec {
			continue
		}
		s := capitalize(c.who) + "; " + tuningText(c.r, int64(spec), int64(c.size)) + "."
		if spec > 0 {
			warns = append(warns, s)
		} else {
			notes = append(notes, s)
		}
	}
	return warns, notes
}

// statesText names what the device states: "the card states a 8MiB
// allocation unit (SD Status AU_SIZE)".
func statesText(r *resultframe.Result, size float64) string {
	who := "the device"
	switch r.Attrs["card_type"] {
	case "MMC":
		who = "the eMMC"
	case "SD":
		who = "the card"
	}
	src := r.Attrs["stated_erase_unit.source"]
	what := "erase unit"
	switch {
	case strings.Contains(src, "AU_SIZE"):
		what = "allocation unit"
	case strings.Contains(src, "ERASE_GRP"):
		what = "erase group"
	case strings.Contains(src, "preferred_erase_size"):
		what = "preferred erase size"
	}
	s := who + " states a " + sizeText(size) + " " + what
	if src != "" {
		s += " (" + src + ")"
	}
	return s
}

// tuningText is what the measured erase block would change in the
// partition's mkfs, or why the report cannot say.
func tuningText(r *resultframe.Result, spec, measured int64) string {
	fstype := r.Attrs["fstype"]
	if fstype == "" {
		if spec > 0 {
			return "the spec's erase_block is " + sizeText(float64(spec)) + ", and the result does not name the partition's filesystem (attribute fstype), so the tuning " + sizeText(float64(measured)) + " would give is not derived"
		}
		return "the spec gives no erase_block, and the result does not name the partition's filesystem (attribute fstype), so the tuning " + sizeText(float64(measured)) + " would give is not derived"
	}
	size, _, _ := attrInt(r, "partition_bytes")
	bs, _, _ := attrInt(r, "fs_block_size")
	return retuning(fstype, size, bs, spec, measured)
}

// flashGeometry is the context's flash geometry and health section, or
// nil when no result says what the storage states.
func (v *view) flashGeometry() *Section {
	readings := v.flashReadings()
	if len(readings) == 0 {
		return nil
	}
	s := &Section{ID: v.ctx.ID + "-flash-geometry", Title: "Flash geometry and health", Context: v.ctx}
	s.text("What the storage says about itself (an eMMC's EXT_CSD, an SD card's CSD and SD Status, what the kernel " +
		"publishes in sysfs), the erase block a flashbench-style probe of timed reads estimates, and the erase block the " +
		"spec tunes the filesystem for. A fact the device does not state is shown as not available, with the reason.")
	same := true
	for _, fr := range readings[1:] {
		same = same && slices.EqualFunc(fr.table().Rows, readings[0].table().Rows, slices.Equal)
	}
	if same && len(readings) > 1 {
		var names []string
		for _, fr := range readings {
			names = append(names, fr.variant)
		}
		readings[0].render(s, "All variants ("+strings.Join(names, ", ")+"): the same readings")
		return s
	}
	for _, fr := range readings {
		fr.render(s, fr.variant)
	}
	return s
}

func (fr *flashReading) render(s *Section, heading string) {
	s.heading(heading)
	warns, notes := fr.warnings()
	for _, w := range warns {
		s.warn(w)
	}
	for _, n := range notes {
		s.text(n)
	}
	s.table(fr.table(), "")
	if ch := fr.changes(); len(ch) > 0 {
		s.list("Health over the campaign:", ch)
	}
}

// capitalize starts a sentence with a capital letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
