package report

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report/svg"
)

// The verdict answers the study's questions one criterion at a time
// (sequential bandwidth, boot time, lifetime, power-loss robustness, ...):
// in each test case that measures a criterion it ranks the candidates
// into significance groups, a candidate whose runs of the case failed
// last, and a summary table gives every candidate's place per criterion,
// its weighted overall place and whether it meets the spec's
// requirements.

// Answer is the report's verdict.
type Answer struct {
	Rankings []*Ranking
	// Criteria are the criteria ranked, in the catalogue's order, with
	// their weights.
	Criteria []WeightedCriterion
	// Places are the summary table's rows, best overall first.
	Places []*Place
	// Requirements are those the verdict checked.
	Requirements []Requirement
}

// WeightedCriterion is a criterion with its weight in the overall place:
// the spec's (FromSpec), else the catalogue's default.
type WeightedCriterion struct {
	Name     string
	Weight   float64
	FromSpec bool
	// Lifetime and Share say what the summary table shows beside a
	// candidate's place: the projected years, or the share of outcomes
	// in the bad classes of the axis Share names (Bad lists them).
	Lifetime bool
	Share    string
	Bad      []string
}

// Ranking ranks the candidates of one context in one test case, by one
// metric (or one outcome axis).
type Ranking struct {
	Context            *Context
	Criterion          string
	Recipe, Test, Case string
	Metric, Unit       string // for outcomes: the axis, and "% good"
	Outcome            bool
	Better             Direction
	// Groups are the significance groups, best first: a group is led by
	// its best candidate, and a candidate joins the group when the data
	// cannot tell it from the leader (Welch's t-test for means, Fisher's
	// exact test for outcome shares, both at 5%).
	Groups [][]Entry
	// Steps[i] is the difference from the leader of Groups[i] to that of
	// Groups[i+1].
	Steps []Step
	// Unranked are candidates with too few results to rank: fewer than
	// two iterations.
	Unranked []string
	// Aside are candidates the ranking could not include, with the
	// reason (a lifetime the model could not project).
	Aside []Failure
	// Failed are candidates with failed runs in this case: they come
	// after every group, whatever their other runs measured.
	Failed []Failure
	// Chart is the slug of the chart that draws these numbers, "" when
	// none does.
	Chart string
	// entries are the candidates to rank, until group sorts them into
	// Groups with the test p.
	entries []Entry
	p       func(a, b Entry) float64
}

// Failure is a candidate left out of a ranking's groups, and why.
type Failure struct {
	Variant string
	// Failed of Runs runs failed, the first with Error; for a candidate
	// set aside, Error is the reason.
	Failed, Runs int
	Error        string
}

// Entry is one candidate's value in a ranking: a mean, or for outcomes
// the share of iterations in the axis's good classes.
type Entry struct {
	Variant string
	Value   float64
	N       int
	sample  Summary
	good    int
}

// Step is the difference between two neighbouring groups' leaders: the
// relative change of the value from the better to the worse (negative for
// a rate, positive for a time) and the test's p-value.
type Step struct {
	Effect float64
	P      float64
}

// Place is one candidate's row of the summary table.
type Place struct {
	Context *Context
	Variant string
	// Criteria holds, per criterion in Answer.Criteria, the best and the
	// worst group the candidate was in (1 = the best group; failed runs
	// place it after the last group); 0 when it was not ranked there.
	Best, Worst []int
	// Failed is, per criterion, whether some of its runs failed;
	// Figures the years or the share of bad outcomes the table shows
	// beside the place ("" for none).
	Failed  []bool
	Figures []string
	// Score is the weighted mean of the places per criterion (the mean
	// of the candidate's group numbers in its rankings); lower is better.
	Score    float64
	HasScore bool
	// Meets is whether the candidate meets every requirement; Failures
	// say which it does not, and why.
	Meets    bool
	Failures []string
}

// Requirement is a hard requirement of the spec's verdict block: a bound
// on a metric's mean in every case of a recipe (in the unit the report
// shows it), or outcome classes that must never occur.
type Requirement struct {
	Name           string
	Recipe, Metric string
	Max, Min       *float64
	Axis           string
	Forbid         []string
	// Criterion narrows the requirement to the cases the recipe's
	// criterion of that name ranks.
	Criterion string
}

// cases is the filter of the cases a requirement bounds.
func (q Requirement) cases() caseFilter {
	if rec, ok := recipes.Lookup(q.Recipe); ok && q.Criterion != "" {
		for _, cr := range rec.Report.Criteria {
			if cr.Name == q.Criterion {
				return casesOf(cr)
			}
		}
	}
	return caseFilter{}
}

func (q Requirement) String() string {
	switch {
	case q.Axis != "" && q.Criterion != "":
		return fmt.Sprintf("%s: no %s %s in %s (%s)", q.Name, q.Axis, strings.Join(q.Forbid, " or "), q.Recipe, q.Criterion)
	case q.Axis != "":
		return fmt.Sprintf("%s: no %s %s in %s", q.Name, q.Axis, strings.Join(q.Forbid, " or "), q.Recipe)
	case q.Max != nil && q.Min != nil:
		return fmt.Sprintf("%s: %s.%s between %s and %s", q.Name, q.Recipe, q.Metric, bound(*q.Min), bound(*q.Max))
	case q.Max != nil:
		return fmt.Sprintf("%s: %s.%s at most %s", q.Name, q.Recipe, q.Metric, bound(*q.Max))
	case q.Min != nil:
		return fmt.Sprintf("%s: %s.%s at least %s", q.Name, q.Recipe, q.Metric, bound(*q.Min))
	}
	return q.Name
}

// bound writes a requirement's bound as the spec gave it.
func bound(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// buildVerdict ranks the candidates of every context by every criterion
// the results measure; runs are the endurance runs the lifetime sections
// modelled, and weights the spec's, over the catalogue's defaults.
func buildVerdict(t *table, runs []*enduranceRun, weights map[string]float64, reqs []Requirement) *Answer {
	v := &Answer{Requirements: reqs}
	seen := map[string]bool{}
	for _, rec := range recipes.All() {
		for _, cr := range rec.Report.Criteria {
			re := casesOf(cr)
			var rs []*Ranking
			switch {
			case cr.Outcomes:
				rs = outcomeRankings(t, rec, cr.Name, re)
			case cr.Lifetime:
				rs = lifetimeRankings(t, runs, rec.Name, cr, re)
			default:
				rs = metricRankings(t, rec.Name, cr, re)
			}
			rs = withFailures(t, rec, cr, re, rs)
			if len(rs) == 0 {
				continue
			}
			for _, rk := range rs {
				rk.group()
			}
			v.Rankings = append(v.Rankings, rs...)
			if !seen[cr.Name] {
				seen[cr.Name] = true
				v.Criteria = append(v.Criteria, weighted(rec, cr, weights))
			}
		}
	}
	v.places(t, reqs)
	return v
}

// caseFilter is the cases a criterion ranks: those its Cases match
// but its Except does not.
type caseFilter struct{ in, out *regexp.Regexp }

func casesOf(cr recipes.Criterion) caseFilter {
	var f caseFilter
	if cr.Cases != "" {
		f.in = regexp.MustCompile(cr.Cases)
	}
	if cr.Except != "" {
		f.out = regexp.MustCompile(cr.Except)
	}
	return f
}

func (f caseFilter) match(c string) bool {
	return (f.in == nil || f.in.MatchString(c)) && (f.out == nil || !f.out.MatchString(c))
}

// weighted is criterion cr of rec with its weight: the spec's, else the
// catalogue's default (1 when it gives none).
func weighted(rec *recipes.Recipe, cr recipes.Criterion, weights map[string]float64) WeightedCriterion {
	wc := WeightedCriterion{Name: cr.Name, Weight: cr.Weight, Lifetime: cr.Lifetime, Share: cr.Share}
	if wc.Weight == 0 {
		wc.Weight = 1
	}
	if w, ok := weights[cr.Name]; ok {
		wc.Weight, wc.FromSpec = w, true
	}
	for _, ax := range rec.Report.Outcomes {
		if ax.Attr == cr.Share {
			wc.Bad = slices.DeleteFunc(slices.Clone(ax.Classes[ax.Good:]), func(c string) bool { return slices.Contains(noFaultClasses, c) })
		}
	}
	return wc
}

// metricRankings ranks each test case's candidates by each metric of cr.
func metricRankings(t *table, recipe string, cr recipes.Criterion, cases caseFilter) []*Ranking {
	type key struct {
		ctx               *Context
		test, cas, metric string
	}
	byKey := map[key]*Ranking{}
	var out []*Ranking
	for _, r := range t.rows {
		if r.Recipe != recipe || !slices.Contains(cr.Metrics, r.Metric) || !cases.match(r.Case) {
			continue
		}
		dir := DirectionOf(r.Metric, r.Unit)
		if dir == NoDirection {
			continue
		}
		k := key{r.Context, r.Test, r.Case, r.Metric}
		rk := byKey[k]
		if rk == nil {
			_, unit := displayUnit(1, r.Unit)
			rk = &Ranking{Context: r.Context, Criterion: cr.Name, Recipe: recipe, Test: r.Test, Case: r.Case,
				Metric: r.Metric, Unit: unit, Better: dir}
			byKey[k] = rk
			out = append(out, rk)
		}
		if r.N < 2 {
			rk.Unranked = append(rk.Unranked, r.Variant)
			continue
		}
		f, _ := displayUnit(1, r.Unit)
		rk.entries = append(rk.entries, Entry{Variant: r.Variant, Value: r.Mean * f, N: r.N, sample: r.Summary})
	}
	for _, rk := range out {
		rk.p = welchP
	}
	return out
}

// welchP is Welch's test of two entries' samples.
func welchP(a, b Entry) float64 { return WelchTest(a.sample, b.sample).P }

// outcomeRankings ranks each test case's candidates by the share of
// iterations in each axis's good classes.
func outcomeRankings(t *table, rec *recipes.Recipe, criterion string, cases caseFilter) []*Ranking {
	byKey := map[string]*Ranking{}
	var out []*Ranking
	for _, o := range t.outcomes {
		if o.Recipe != rec.Name || !cases.match(o.Case) {
			continue
		}
		i := slices.IndexFunc(rec.Report.Outcomes, func(a recipes.Axis) bool { return a.Attr == o.Axis })
		if i < 0 {
			continue
		}
		axis := rec.Report.Outcomes[i]
		k := o.Context.ID + "\x00" + o.Test + "\x00" + o.Case + "\x00" + o.Axis
		rk := byKey[k]
		if rk == nil {
			rk = &Ranking{Context: o.Context, Criterion: criterion, Recipe: rec.Name, Test: o.Test, Case: o.Case,
				Metric: o.Axis, Unit: "% " + strings.Join(axis.Classes[:axis.Good], " or "), Outcome: true, Better: HigherIsBetter}
			byKey[k] = rk
			out = append(out, rk)
		}
		total, good := 0, 0
		for class, n := range o.Counts {
			if slices.Contains(noFaultClasses, class) {
				continue
			}
			total += n
			if j := slices.Index(axis.Classes, class); j >= 0 && j < axis.Good {
				good += n
			}
		}
		if total == 0 {
			rk.Unranked = append(rk.Unranked, o.Variant)
			continue
		}
		rk.entries = append(rk.entries, Entry{Variant: o.Variant, Value: 100 * float64(good) / float64(total), N: total, good: good})
	}
	for _, rk := range out {
		rk.p = func(a, b Entry) float64 { return FisherExact(a.good, a.N-a.good, b.good, b.N-b.good) }
	}
	return out
}

// noFaultClasses are outcome values of iterations in which no fault
// reached the device: they say nothing about robustness.
var noFaultClasses = []string{"NoFault"}

// group sorts the ranking's entries best first and merges them into
// significance groups, rk.p giving the test's p-value.
func (rk *Ranking) group() {
	es, p := rk.entries, rk.p
	rk.entries = nil
	slices.SortStableFunc(es, func(a, b Entry) int {
		if rk.Better == HigherIsBetter {
			return cmp.Or(cmp.Compare(b.Value, a.Value), cmp.Compare(a.Variant, b.Variant))
		}
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.Variant, b.Variant))
	})
	for _, e := range es {
		if n := len(rk.Groups); n > 0 {
			lead := rk.Groups[n-1][0]
			pv := p(lead, e)
			if !(pv < Alpha) {
				rk.Groups[n-1] = append(rk.Groups[n-1], e)
				continue
			}
			effect := math.NaN()
			if lead.Value != 0 {
				effect = (e.Value - lead.Value) / math.Abs(lead.Value)
			}
			rk.Steps = append(rk.Steps, Step{Effect: effect, P: pv})
		}
		rk.Groups = append(rk.Groups, []Entry{e})
	}
	slices.Sort(rk.Unranked)
	slices.SortFunc(rk.Failed, func(a, b Failure) int { return cmp.Compare(a.Variant, b.Variant) })
}

// Line writes the ranking as "xfs ≈ ext4 > f2fs (-23%, p=0.002)".
func (rk *Ranking) Line() string {
	var parts []string
	for i, g := range rk.Groups {
		names := make([]string, len(g))
		for j, e := range g {
			names[j] = e.Variant
		}
		s := strings.Join(names, " ≈ ")
		if i > 0 {
			st := rk.Steps[i-1]
			eff := "-"
			if !math.IsNaN(st.Effect) {
				eff = signedPct(st.Effect)
			}
			s = "> " + s + " (" + eff + ", " + pvalue(st.P) + ")"
		}
		parts = append(parts, s)
	}
	line := strings.Join(parts, " ")
	add := func(s string) {
		if line != "" {
			line += "; "
		}
		line += s
	}
	if len(rk.Unranked) > 0 {
		add("not ranked (fewer than two results): " + strings.Join(rk.Unranked, ", "))
	}
	for _, a := range rk.Aside {
		add("not ranked: " + a.Variant + " (" + a.Error + ")")
	}
	if len(rk.Failed) > 0 {
		var fs []string
		for _, f := range rk.Failed {
			fs = append(fs, f.Variant+" ("+f.reason()+")")
		}
		add("failed, so last: " + strings.Join(fs, ", "))
	}
	return line
}

// Sentence is the ranking as the verdict lists it after its criterion:
// what it compares, the ranking, and what the data cannot separate.
func (rk *Ranking) Sentence() string {
	s := rk.Subject() + ": " + rk.Line()
	if sep := rk.Separation(); sep != "" {
		s += " — " + sep
	}
	return s + "."
}

// Separation says what the data could not separate, "" when every
// candidate is in a group of its own.
func (rk *Ranking) Separation() string {
	var out []string
	for _, g := range rk.Groups {
		if len(g) < 2 {
			continue
		}
		names := make([]string, len(g))
		for j, e := range g {
			names[j] = e.Variant
		}
		out = append(out, strings.Join(names, ", "))
	}
	if len(out) == 0 {
		return ""
	}
	return "the data cannot separate " + strings.Join(out, "; nor ")
}

// Values lists each candidate's value, best first: "xfs 41.2, ext4 40.8".
func (rk *Ranking) Values() string {
	var out []string
	for _, g := range rk.Groups {
		for _, e := range g {
			out = append(out, e.Variant+" "+svg.Num(e.Value)+" (n="+strconv.Itoa(e.N)+")")
		}
	}
	return strings.Join(out, ", ")
}

func signedPct(f float64) string {
	s := strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if f > 0 {
		s = "+" + s
	}
	return s
}

// places fills the summary table: per context and candidate, its groups
// per criterion, its overall score and the requirements it meets.
func (v *Answer) places(t *table, reqs []Requirement) {
	for _, c := range t.contexts {
		var ps []*Place
		for _, variant := range c.Variants {
			ps = append(ps, v.place(c, variant))
		}
		slices.SortStableFunc(ps, func(a, b *Place) int {
			switch {
			case a.HasScore && !b.HasScore:
				return -1
			case !a.HasScore && b.HasScore:
				return 1
			}
			return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.Variant, b.Variant))
		})
		for _, p := range ps {
			p.Failures = requirementFailures(t, c, p.Variant, reqs)
			p.Meets = len(p.Failures) == 0
		}
		v.Places = append(v.Places, ps...)
	}
}

// place is a candidate's groups per criterion in context c, and its
// weighted score.
func (v *Answer) place(c *Context, variant string) *Place {
	n := len(v.Criteria)
	p := &Place{Context: c, Variant: variant, Best: make([]int, n), Worst: make([]int, n), Failed: make([]bool, n), Figures: make([]string, n)}
	var sum, wsum float64
	for i, cr := range v.Criteria {
		var pos []int
		var rks []*Ranking
		for _, rk := range v.Rankings {
			if rk.Context != c || rk.Criterion != cr.Name {
				continue
			}
			rks = append(rks, rk)
			for g, grp := range rk.Groups {
				if slices.ContainsFunc(grp, func(e Entry) bool { return e.Variant == variant }) {
					pos = append(pos, g+1)
				}
			}
			// Failed runs rank after every group; where nobody could
			// be ranked, nobody is first either.
			if slices.ContainsFunc(rk.Failed, func(f Failure) bool { return f.Variant == variant }) {
				p.Failed[i] = true
				if len(rk.Groups) > 0 {
					pos = append(pos, len(rk.Groups)+1)
				}
			}
		}
		if !p.Failed[i] {
			p.Figures[i] = figure(cr, rks, variant)
		}
		if len(pos) == 0 {
			continue
		}
		p.Best[i], p.Worst[i] = slices.Min(pos), slices.Max(pos)
		var m float64
		for _, x := range pos {
			m += float64(x)
		}
		sum += cr.Weight * m / float64(len(pos))
		wsum += cr.Weight
	}
	if wsum > 0 {
		p.Score, p.HasScore = sum/wsum, true
	}
	return p
}

// requirementFailures says which requirements a candidate does not meet
// in a context: a bound its mean misses in some case, a forbidden outcome
// it had, or a requirement nothing measured (which cannot be met).
func requirementFailures(t *table, c *Context, variant string, reqs []Requirement) []string {
	var out []string
	for _, q := range reqs {
		measured, cases := false, q.cases()
		var fails []string
		if q.Axis != "" {
			for _, o := range t.outcomes {
				if o.Context != c || o.Variant != variant || o.Recipe != q.Recipe || o.Axis != q.Axis || !cases.match(o.Case) {
					continue
				}
				measured = true
				for _, class := range q.Forbid {
					if n := o.Counts[class]; n > 0 {
						fails = append(fails, fmt.Sprintf("%d× %s in %s/%s", n, class, o.Test, o.Case))
					}
				}
			}
		} else {
			for _, r := range t.rows {
				if r.Context != c || r.Variant != variant || r.Recipe != q.Recipe || r.Metric != q.Metric || r.N == 0 || !cases.match(r.Case) {
					continue
				}
				measured = true
				f, unit := displayUnit(1, r.Unit)
				m := r.Mean * f
				if (q.Max != nil && m > *q.Max) || (q.Min != nil && m < *q.Min) {
					fails = append(fails, fmt.Sprintf("%s %s in %s/%s", svg.Num(m), unit, r.Test, r.Case))
				}
			}
		}
		switch {
		case !measured:
			out = append(out, q.Name+": not measured")
		case len(fails) > 0:
			out = append(out, q.Name+": "+strings.Join(fails, ", "))
		}
	}
	return out
}

// FisherExact is the two-sided p-value of Fisher's exact test on the 2×2
// table [[a, b], [c, d]]: the probability, with the margins fixed, of a
// table at most as likely as this one.
func FisherExact(a, b, c, d int) float64 {
	n := a + b + c + d
	row1, col1 := a+b, a+c
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	base := lf(row1) + lf(n-row1) + lf(col1) + lf(n-col1) - lf(n)
	prob := func(x int) float64 {
		return math.Exp(base - lf(x) - lf(row1-x) - lf(col1-x) - lf(n-row1-col1+x))
	}
	observed := prob(a)
	var p float64
	for x := max(0, row1+col1-n); x <= min(row1, col1); x++ {
		if q := prob(x); q <= observed*(1+1e-7) {
			p += q
		}
	}
	return math.Min(1, p)
}

// placeText writes a candidate's groups in a criterion: "1st", "1st-3rd",
// "-" when it was not ranked there.
func placeText(best, worst int) string {
	switch {
	case best == 0:
		return "-"
	case best == worst:
		return ordinal(best)
	}
	return ordinal(best) + "–" + ordinal(worst)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// placesTable is the summary table of context c: one row per candidate,
// best overall first.
func (v *Answer) placesTable(c *Context) *Table {
	t := &Table{Head: []string{"candidate"}}
	var shown []int // the criteria someone of c was ranked in
	for i := range v.Criteria {
		if slices.ContainsFunc(v.Places, func(p *Place) bool { return p.Context == c && (p.Best[i] > 0 || p.Failed[i]) }) {
			shown = append(shown, i)
		}
	}
	for _, i := range shown {
		cr := v.Criteria[i]
		h := cr.Name
		if cr.Weight != 1 {
			h += " (×" + strconv.FormatFloat(cr.Weight, 'g', -1, 64) + ")"
		}
		t.Head = append(t.Head, h)
	}
	t.Head = append(t.Head, "overall")
	if len(v.Requirements) > 0 {
		t.Head = append(t.Head, "requirements")
	}
	for _, p := range v.Places {
		if p.Context != c {
			continue
		}
		row := []string{p.Variant}
		for _, i := range shown {
			cell := placeText(p.Best[i], p.Worst[i])
			switch {
			case p.Failed[i]:
				cell = "failed"
			case p.Figures[i] != "":
				cell += " · " + p.Figures[i]
			}
			row = append(row, cell)
		}
		overall := "-"
		if p.HasScore {
			overall = strconv.FormatFloat(p.Score, 'f', 2, 64)
		}
		row = append(row, overall)
		if len(v.Requirements) > 0 {
			if p.Meets {
				row = append(row, "met")
			} else {
				row = append(row, "not met: "+strings.Join(p.Failures, "; "))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// meeting lists the candidates of context c that meet every
// requirement, best overall first.
func (v *Answer) meeting(c *Context) []string {
	var out []string
	for _, p := range v.Places {
		if p.Context == c && p.Meets {
			out = append(out, p.Variant)
		}
	}
	return out
}

// rankingsOf returns the rankings of context c that rank someone, and
// per criterion a sentence on the cases nobody could be ranked in.
func (v *Answer) rankingsOf(c *Context) (ranked []*Ranking, unranked []string) {
	none := map[string][]string{}
	var order []string
	for _, rk := range v.Rankings {
		switch {
		case rk.Context != c:
		case len(rk.Groups) > 0 || len(rk.Failed) > 0:
			ranked = append(ranked, rk)
		default:
			if _, ok := none[rk.Criterion]; !ok {
				order = append(order, rk.Criterion)
			}
			none[rk.Criterion] = append(none[rk.Criterion], rk.Test+"/"+rk.Case+" "+rk.Metric)
		}
	}
	for _, cr := range order {
		unranked = append(unranked, cr+": nothing ranked in "+strings.Join(none[cr], ", ")+
			" (fewer than two results per candidate: give the test iterations or a settle block)")
	}
	return ranked, unranked
}

// Subject names what a ranking compares: "fio seq/read-4MiB-direct,
// read_bw (MB/s, higher is better)".
func (rk *Ranking) Subject() string {
	s := rk.Recipe + " " + rk.Test + "/" + rk.Case
	if rk.Metric == "" {
		return s
	}
	return s + ", " + rk.Metric + " (" + rk.Unit + ", " + rk.Better.String() + ")"
}

// requirementsLine names the requirements and the candidates of context
// c that meet them all.
func requirementsLine(v *Answer, c *Context) string {
	reqs := make([]string, len(v.Requirements))
	for i, q := range v.Requirements {
		reqs[i] = q.String()
	}
	s := "Requirements: " + strings.Join(reqs, "; ") + ". "
	if m := v.meeting(c); len(m) > 0 {
		return s + "Candidates that meet them all, best overall first: " + strings.Join(m, ", ") + "."
	}
	return s + "No candidate meets them all."
}
