package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/spec/diag"
)

// Settle's bounds and defaults. Three results are the fewest with an
// interval of any use (t(0.975, 2) = 4.3 standard errors); thirty is
// where Student's t is within 4% of the normal, past which more
// iterations narrow the interval only by the square root of their number.
const (
	settleMinDefault = 3
	settleMaxDefault = 30
	settleMaxBound   = 100000
)

var settleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "ci", Required: true}, {Name: "min"}, {Name: "max"}, {Name: "metrics"},
}}

// settle reads a test's settle block against its recipe.
func (d *decoder) settle(b *hcl.Block, r *recipes.Recipe, t *Test) *Settle {
	c := d.content(b.Body, settleSchema)
	st := &Settle{Min: settleMinDefault, Max: settleMaxDefault, Ranges: newRanges(b.DefRange, c.Attributes)}
	if !r.Settles() {
		why := "it gives one result per case"
		if len(r.Report.Outcomes) > 0 {
			why = "it classifies each iteration (" + r.Report.Outcomes[0].Attr + "), and a class has no mean to settle; give iterations"
		}
		d.errorf(b.DefRange, "Test cannot settle", "A settle block repeats a measurement until its mean is known; %s cannot: %s.", r.Name, why)
		return nil
	}
	if rng, ok := t.Attrs[r.Count]; ok {
		d.errorf(rng, "Count and settle block together",
			"%s gives a fixed count of results, and the settle block repeats each case until its results agree, from min to max: keep one.", r.Count)
	}
	if a, ok := c.Attributes["ci"]; ok {
		st.CI = d.percent(a)
	}
	if x, ok := d.field(c.Attributes, fields.Field{Name: "min", Kind: fields.Int, Min: fields.Bound(2), Max: fields.Bound(settleMaxBound)}, "Invalid settle block"); ok && x != nil {
		st.Min = int(x.(int64))
	}
	if x, ok := d.field(c.Attributes, fields.Field{Name: "max", Kind: fields.Int, Min: fields.Bound(2), Max: fields.Bound(settleMaxBound)}, "Invalid settle block"); ok && x != nil {
		st.Max = int(x.(int64))
	}
	if st.Max < st.Min {
		d.errorf(st.Of("max"), "Invalid settle block", "max (%d) is below min (%d): the most iterations must allow the fewest.", st.Max, st.Min)
	}
	st.Metrics = r.SettleMetrics()
	if _, ok := c.Attributes["metrics"]; ok {
		st.Metrics = d.strings(c.Attributes, "metrics", "Invalid settle block")
		allowed := r.SettleChoices()
		for i, m := range st.Metrics {
			if !slices.Contains(allowed, m) {
				rng := st.Of("metrics")
				if e := st.Elems["metrics"]; i < len(e) {
					rng = e[i]
				}
				d.errorf(rng, "Unknown settle metric", "The runner cannot settle %s on %q: it watches %s.%s",
					r.Name, m, quoteAll(allowed), diag.DidYouMean(m, allowed))
			}
		}
		if len(st.Metrics) == 0 {
			d.errorf(st.Of("metrics"), "Invalid settle block", "metrics names no metric; leave it out for %s.", quoteAll(r.SettleMetrics()))
		}
	}
	if len(st.Metrics) == 0 {
		d.errorf(b.DefRange, "Test cannot settle", "%s names no metric to settle on.", r.Name)
	}
	return st
}

// percent reads a share written as "5%" into a fraction (0.05), above 0
// and below 100%.
func (d *decoder) percent(a *hcl.Attribute) float64 {
	v, ok := d.value(a)
	if !ok {
		return 0
	}
	bad := func(what string) float64 {
		d.errorf(a.Expr.Range(), "Invalid settle block",
			"ci is the half-width the 95%% confidence interval of the mean must reach, as a share of the mean, written as a percentage such as \"5%%\"; %s.", what)
		return 0
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return bad("not a " + v.Type().FriendlyName())
	}
	s := strings.TrimSpace(v.AsString())
	num, isPct := strings.CutSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case !isPct || err != nil:
		return bad(fmt.Sprintf("%q is not one", s))
	case !(f > 0 && f < 100):
		return bad(fmt.Sprintf("%s is not between 0%% and 100%%", s))
	}
	return f / 100
}
