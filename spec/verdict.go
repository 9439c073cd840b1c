package spec

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/spec/diag"
)

// Verdict is the spec's verdict block: how the report weighs its
// criteria, and what a candidate must meet.
type Verdict struct {
	// Weights are the criteria's weights in the overall place, by
	// criterion name ("boot time"); 1 for every criterion not named.
	Weights  map[string]float64
	Requires []*Requirement
	Ranges
}

// Requirement is a require block: a bound on a metric's mean in every
// case of its recipe (Metric "recipe.metric", Max or Min in the unit the
// report shows it), or outcome classes that must never occur (Outcome
// "recipe.axis", Forbid).
type Requirement struct {
	Name            string
	Metric, Outcome string
	// Criterion, when set, narrows the requirement to the cases the
	// criterion ranks ("survives a device that ignores flush": the
	// crash_states cases whose device ignores flushes).
	Criterion string
	Max, Min  *float64
	Forbid    []string
	Ranges
}

var verdictSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "weights"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "require", LabelNames: []string{"name"}}},
}

var requireSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "metric"}, {Name: "outcome"}, {Name: "max"}, {Name: "min"}, {Name: "forbid"}, {Name: "criterion"},
}}

// Criteria lists the names of the verdict's criteria, in the catalogue's
// order.
func Criteria() []string {
	var out []string
	for _, r := range recipes.All() {
		for _, c := range r.Report.Criteria {
			if !slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

// verdict reads the verdict block.
func (d *decoder) verdict(b *hcl.Block) *Verdict {
	c := d.content(b.Body, verdictSchema)
	v := &Verdict{Weights: map[string]float64{}, Ranges: newRanges(b.DefRange, c.Attributes)}
	if a, ok := c.Attributes["weights"]; ok {
		d.weights(a, v)
	}
	names := map[string]hcl.Range{}
	for _, rb := range c.Blocks {
		q := d.requirement(rb)
		if prev, dup := names[q.Name]; dup {
			d.errorf(rb.LabelRanges[0], "Duplicate requirement", "Requirement %q is already declared at %s.", q.Name, describeRange(prev))
			continue
		}
		names[q.Name] = rb.LabelRanges[0]
		v.Requires = append(v.Requires, q)
	}
	return v
}

func (d *decoder) weights(a *hcl.Attribute, v *Verdict) {
	val, ok := d.value(a)
	if !ok {
		return
	}
	if !val.Type().IsObjectType() && !val.Type().IsMapType() {
		d.errorf(a.Expr.Range(), "Invalid weights", "weights maps criteria to numbers, such as { \"boot time\" = 2 }.")
		return
	}
	criteria := Criteria()
	for it := val.ElementIterator(); it.Next(); {
		k, w := it.Element()
		name := k.AsString()
		if !slices.Contains(criteria, name) {
			d.errorf(a.Expr.Range(), "Unknown criterion", "The verdict has no criterion %q.%s Criteria: %s.",
				name, diag.DidYouMean(name, criteria), quoteAll(criteria))
			continue
		}
		if w.IsNull() || w.Type() != cty.Number {
			d.errorf(a.Expr.Range(), "Invalid weights", "The weight of %q is not a number.", name)
			continue
		}
		f, _ := w.AsBigFloat().Float64()
		if !(f >= 0) || f > 1000 {
			d.errorf(a.Expr.Range(), "Invalid weights", "The weight of %q is %v; a weight lies between 0 (left out) and 1000.", name, f)
			continue
		}
		v.Weights[name] = f
	}
}

// requirement reads a require block and checks it against the catalogue.
func (d *decoder) requirement(b *hcl.Block) *Requirement {
	c := d.content(b.Body, requireSchema)
	q := &Requirement{Name: b.Labels[0], Ranges: newRanges(b.DefRange, c.Attributes)}
	q.Metric = d.str(c.Attributes, "metric", "Invalid requirement")
	q.Outcome = d.str(c.Attributes, "outcome", "Invalid requirement")
	for _, bound := range []struct {
		name string
		to   **float64
	}{{"max", &q.Max}, {"min", &q.Min}} {
		if x, ok := d.field(c.Attributes, fields.Field{Name: bound.name, Kind: fields.Float}, "Invalid requirement"); ok && x != nil {
			f := x.(float64)
			*bound.to = &f
		}
	}
	q.Forbid = d.strings(c.Attributes, "forbid", "Invalid requirement")
	q.Criterion = d.str(c.Attributes, "criterion", "Invalid requirement")
	defer d.requiredCriterion(q)
	switch {
	case (q.Metric == "") == (q.Outcome == ""):
		d.errorf(b.DefRange, "Invalid requirement", "A require block names one metric (metric = \"boot_time.host_boot\", with max or min) or one outcome axis (outcome = \"power_loss.data\", with forbid).")
	case q.Metric != "":
		rec, name := d.requiredRecipe(q, "metric", q.Metric)
		if rec != nil && !slices.Contains(rec.Metrics(), name) {
			d.errorf(q.Of("metric"), "Unknown metric", "%s reports no metric %q.%s Its metrics: %s.",
				rec.Name, name, diag.DidYouMean(name, rec.Metrics()), quoteAll(rec.Metrics()))
		}
		if q.Max == nil && q.Min == nil {
			d.errorf(b.DefRange, "Invalid requirement", "A metric requirement needs max or min, in the unit the report shows the metric in (seconds, MB/s, ...).")
		}
		if len(q.Forbid) > 0 {
			d.errorf(q.Of("forbid"), "Invalid requirement", "forbid names outcome classes; it goes with outcome, not with metric.")
		}
	default:
		rec, name := d.requiredRecipe(q, "outcome", q.Outcome)
		if rec == nil {
			break
		}
		i := slices.IndexFunc(rec.Report.Outcomes, func(a recipes.Axis) bool { return a.Attr == name })
		if i < 0 {
			var axes []string
			for _, a := range rec.Report.Outcomes {
				axes = append(axes, a.Attr)
			}
			d.errorf(q.Of("outcome"), "Unknown outcome axis", "%s classifies no %q.%s", rec.Name, name, axesText(axes))
			break
		}
		classes := rec.Report.Outcomes[i].Classes
		for k, class := range q.Forbid {
			if !slices.Contains(classes, class) {
				d.errorf(q.OfElem("forbid", k), "Unknown outcome class", "%s %s has no class %q.%s Classes: %s.",
					rec.Name, name, class, diag.DidYouMean(class, classes), quoteAll(classes))
			}
		}
		if len(q.Forbid) == 0 {
			d.errorf(b.DefRange, "Invalid requirement", "An outcome requirement needs forbid, the classes that must never occur, such as [\"LostSynced\", \"Corrupt\"].")
		}
		if q.Max != nil || q.Min != nil {
			d.errorf(q.Of("max"), "Invalid requirement", "max and min bound a metric; an outcome requirement forbids classes.")
		}
	}
	return q
}

func axesText(axes []string) string {
	if len(axes) == 0 {
		return " It classifies nothing."
	}
	return " Its axes: " + quoteAll(axes) + "."
}

// requiredCriterion checks that a requirement's criterion is one its
// recipe answers.
func (d *decoder) requiredCriterion(q *Requirement) {
	if q.Criterion == "" {
		return
	}
	ref := q.Metric + q.Outcome
	name, _, _ := strings.Cut(ref, ".")
	rec, found := recipes.Lookup(name)
	if !found {
		return // said at metric or outcome
	}
	var names []string
	for _, c := range rec.Report.Criteria {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, q.Criterion) {
		d.errorf(q.Of("criterion"), "Unknown criterion", "%s answers no criterion %q.%s Its criteria: %s.",
			rec.Name, q.Criterion, diag.DidYouMean(q.Criterion, names), quoteAll(names))
	}
}

// requiredRecipe splits "recipe.name" and looks the recipe up.
func (d *decoder) requiredRecipe(q *Requirement, attr, ref string) (*recipes.Recipe, string) {
	name, what, ok := strings.Cut(ref, ".")
	if !ok {
		d.errorf(q.Of(attr), "Invalid requirement", "%s is written recipe.name, such as %q.", attr, map[string]string{"metric": "boot_time.host_boot", "outcome": "power_loss.data"}[attr])
		return nil, ""
	}
	rec, found := recipes.Lookup(name)
	if !found {
		d.errorf(q.Of(attr), "Unknown test recipe", "fsbench has no recipe %q.%s", name, diag.DidYouMean(name, recipes.Names()))
		return nil, ""
	}
	return rec, what
}
