package report

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// view is the part of the aggregated table that belongs to one context,
// indexed for the chart builders.
type view struct {
	ctx      *Context
	rows     []*Row
	byKey    map[rowKey]*Row
	tests    map[string][]string    // recipe -> tests, in order
	cases    map[[2]string][]string // recipe, test -> cases, in order
	series   []series               // every candidate, in order
	problems []Problem
	outcomes []*Outcome
	measured []measured
}

// series is one candidate: a variant measured with one tool.
type series struct {
	variant, tool string
}

func newView(t *table, c *Context) *view {
	v := &view{ctx: c, byKey: map[rowKey]*Row{}, tests: map[string][]string{}, cases: map[[2]string][]string{}}
	addTestCase := func(recipe, test, cas string) {
		if !slices.Contains(v.tests[recipe], test) {
			v.tests[recipe] = append(v.tests[recipe], test)
		}
		k := [2]string{recipe, test}
		if !slices.Contains(v.cases[k], cas) {
			v.cases[k] = append(v.cases[k], cas)
		}
	}
	for _, r := range t.rows {
		if r.Context != c {
			continue
		}
		v.rows = append(v.rows, r)
		v.byKey[rowKey{c.ID, r.Recipe, r.Test, r.Case, r.Variant, r.Tool, r.Metric}] = r
		addTestCase(r.Recipe, r.Test, r.Case)
		if s := (series{r.Variant, r.Tool}); !slices.Contains(v.series, s) {
			v.series = append(v.series, s)
		}
	}
	for _, p := range t.problems {
		if p.Context == c {
			v.problems = append(v.problems, p)
			addTestCase(p.Recipe, p.Test, p.Case)
		}
	}
	for _, m := range t.measured {
		if m.ctx == c {
			v.measured = append(v.measured, m)
		}
	}
	for _, o := range t.outcomes {
		if o.Context == c {
			v.outcomes = append(v.outcomes, o)
			addTestCase(o.Recipe, o.Test, o.Case)
		}
	}
	// Candidates in the order of the context's variants, so that every
	// chart of a context shows them in the same order and colours.
	slices.SortStableFunc(v.series, func(a, b series) int {
		return slices.Index(c.Variants, a.variant) - slices.Index(c.Variants, b.variant)
	})
	return v
}

func (v *view) row(recipe, test, cas string, s series, metric string) *Row {
	return v.byKey[rowKey{v.ctx.ID, recipe, test, cas, s.variant, s.tool, metric}]
}

// hasCase reports whether any row of the test case has the metric.
func (v *view) hasCase(recipe, test, cas, metric string) bool {
	for _, r := range v.rows {
		if r.Recipe == recipe && r.Test == test && r.Case == cas && r.Metric == metric {
			return true
		}
	}
	return false
}

// missing says why a candidate has no value in a test case ("failed",
// "skipped", or "" when it was not run at all), and how many of its
// iterations failed and were skipped.
func (v *view) missing(recipe, test, cas, variant string) (why string, failed, skipped int) {
	return missingIn(v.problems, v.ctx, recipe, test, cas, variant)
}

// missingIn is view.missing over the problems ps of context c.
func missingIn(ps []Problem, c *Context, recipe, test, cas, variant string) (why string, failed, skipped int) {
	na := 0
	for _, p := range ps {
		if p.Context == c && p.Recipe == recipe && p.Test == test && p.Case == cas && p.Variant == variant {
			switch {
			case p.NotApplicable:
				na++
				skipped++
			case p.Status == resultframe.StatusSkipped:
				skipped++
			default:
				failed++
			}
		}
	}
	switch {
	case failed > 0:
		why = "failed"
	case skipped > na:
		why = "skipped"
	case na > 0:
		why = "n/a"
	}
	return why, failed, skipped
}

// seriesFor returns the candidates a chart of recipe and test over the
// given cases and metrics shows: those with a value, and those whose
// runs failed or were skipped (drawn as such).
func (v *view) seriesFor(recipe, test string, cases, metrics []string) []series {
	var out []series
	for _, s := range v.series {
		for _, c := range cases {
			for _, m := range metrics {
				if v.row(recipe, test, c, s, m) != nil && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	for _, variant := range v.ctx.Variants {
		if slices.ContainsFunc(out, func(s series) bool { return s.variant == variant }) {
			continue
		}
		for _, c := range cases {
			if why, _, _ := v.missing(recipe, test, c, variant); why != "" {
				out = append(out, series{variant: variant})
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b series) int {
		return slices.Index(v.ctx.Variants, a.variant) - slices.Index(v.ctx.Variants, b.variant)
	})
	return out
}

// seriesNames labels candidates by variant, adding the tool only when a
// variant appears with more than one, so that a chart never hides that
// it mixes fio and the built-in engine.
func seriesNames(ss []series) []string {
	count := map[string]int{}
	for _, s := range ss {
		count[s.variant]++
	}
	var names []string
	for _, s := range ss {
		if count[s.variant] > 1 && s.tool != "" {
			names = append(names, s.variant+" ("+s.tool+")")
		} else {
			names = append(names, s.variant)
		}
	}
	return names
}

// palette are the series colours, told apart by most colour-blind readers
// (Paul Tol's "bright" scheme, then darker tones), none of them the grey
// of missing data.
var palette = []string{"#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377",
	"#222255", "#EE7733", "#009988", "#994455"}

// colors gives each candidate of a chart the colour of its variant (see
// variantColors); a variant the chart shows more than once (measured
// with several tools) takes a colour further along the palette for each
// repeat.
func (v *view) colors(ss []series) []string {
	slots := variantColors(v.ctx.Variants)
	seen := map[string]int{}
	var out []string
	for _, s := range ss {
		i := slots[s.variant] + 3*seen[s.variant]
		seen[s.variant]++
		out = append(out, palette[i%len(palette)])
	}
	return out
}

// variantColors gives each variant a palette slot from its name alone,
// so that a variant keeps its colour in every chart and in every report:
// the slot is a hash of the name; when two variants of one report hash
// to the same slot, the one later by name takes the next free slot.
func variantColors(variants []string) map[string]int {
	names := slices.Clone(variants)
	slices.Sort(names)
	taken := make([]bool, len(palette))
	free := len(palette)
	out := map[string]int{}
	for _, n := range names {
		if _, dup := out[n]; dup {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(n))
		slot := int(h.Sum32() % uint32(len(palette)))
		for free > 0 && taken[slot] {
			slot = (slot + 1) % len(palette)
		}
		if free > 0 {
			taken[slot] = true
			free--
		}
		out[n] = slot
	}
	return out
}

// slug makes a file-name-safe lower-case form of s.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	out := b.String()
	// A chart's file name must stay well under the filesystem's 255
	// bytes, whatever the names of tests and cases a results file holds;
	// a long slug keeps its start and a digest of the whole.
	if len(out) > maxSlug {
		sum := sha256.Sum256([]byte(s))
		out = strings.TrimRight(out[:maxSlug-9], "-") + "-" + hex.EncodeToString(sum[:4])
	}
	return out
}

// maxSlug bounds a slug, the name of a chart's file without the context
// and number before it and the extension after it.
const maxSlug = 96
