package recipes

import (
	"slices"
	"strings"
	"time"

	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// What a recipe needs and how its results are read, as data: the plan
// compiles Needs into the run plan, the image builder, the QEMU target and
// the build-system helpers read it from there or from the catalogue, and
// the run summary and the report take Report. No package outside this one
// and the recipe's own target file needs to know a recipe by its name.

// Needs is what a recipe's tests need on the target besides the runner.
type Needs struct {
	// Programs are run by the test, by their name on the target's PATH
	// (sqlite_tps: sqlite3). A test whose program is missing is skipped
	// with the reason.
	Programs []string
	// CasePrograms, when set, gives the programs one case runs beyond
	// Programs, from its values (crash_states' sqlite workload: sqlite3).
	CasePrograms func(p Params) []string
	// Prefers are programs the test uses when the image has them and
	// replaces with a built-in engine otherwise (fio).
	Prefers []string
	// Checker: the test runs the checker of its partition's filesystem;
	// Mkfs: it re-makes that filesystem. The plan resolves both to the
	// partition's own command lines.
	Checker, Mkfs bool
	// CheckerOnly: the test measures the checker itself, so it does not
	// apply to a filesystem that has none (nilfs2): the plan says so,
	// and the test is reported as not applicable, never as failed.
	CheckerOnly bool
	// UpdateBundle: the host makes, for each case, the old and the new
	// image of an A/B update, a RAUC bundle of the new one signed with a
	// key made for the test, and puts them in the root filesystem.
	UpdateBundle bool
	// Kernel lists the kernel features the test uses.
	Kernel []KernelNeed
}

// KernelNeed is one kernel feature a recipe uses on the target.
type KernelNeed struct {
	// Why is the sentence `fsbench kconfig` writes above the options.
	Why string
	// Config are the options (without CONFIG_) to build in.
	Config []string
	// Modules are what the QEMU target's initramfs loads for it, from
	// Debian's kernel, by module name.
	Modules []string
	// Watchdog: the feature is a hardware watchdog, so the board's own
	// watchdog driver is needed too (QEMU's i6300esb on the QEMU target).
	Watchdog bool
}

// Report says how the run summary and the report read a recipe's results.
type Report struct {
	// Headline are the metrics the run summary shows, in this order;
	// none shows every metric as the runner stored it.
	Headline []Headline
	// Outcomes, when set, classify every iteration on these axes (each
	// a result attribute): the summary and the report count the classes
	// instead of averaging metrics.
	Outcomes []Axis
	// OutcomeCounts means a result stands for many classified runs
	// (crash_states' campaign, for its states): it carries the count of
	// each class as the metric <axis>.<class>, and it is those counts
	// that add up, not the result's own attributes.
	OutcomeCounts bool
	// Charts are the report's figures of each test of the recipe, in
	// this order.
	Charts []Chart
	// Settle are the metrics a settle block watches when it names none;
	// empty takes the headline metrics, else the first chart's.
	Settle []string
	// More are metrics the recipe gives that neither the headline nor a
	// chart shows, which a settle block may name.
	More []string
	// Criteria are the questions of the report's verdict that the
	// recipe's results answer.
	Criteria []Criterion
}

// Criterion is one question the verdict ranks the candidates by: "boot
// time", "random bandwidth". Several recipes may answer one.
type Criterion struct {
	Name string
	// Metrics are ranked, each in every case its Cases matches (a
	// regular expression of case names; empty matches every case). With
	// Outcomes, the recipe's outcome axes are ranked instead, by the
	// share of iterations in each axis's best class.
	Metrics []string
	Cases   string
	// Except is a regular expression of case names the criterion leaves
	// to another (empty: none).
	Except   string
	Outcomes bool
	// Lifetime ranks the years the report's flash model projects from
	// the recipe's block trace and the board's rated P/E cycles (higher
	// is better) instead of Metrics; where no lifetime can be projected,
	// Metrics are ranked.
	Lifetime bool
	// Share names the outcome axis whose share of iterations in its bad
	// classes the verdict's table shows beside a candidate's place
	// ("data": synced data lost or corrupt).
	Share string
	// Weight is the criterion's weight in the verdict's overall place
	// when no spec names it (1 when 0): what a team cannot fix in the
	// field (lost data, worn-out flash) weighs more than what it can
	// tune or live with.
	Weight float64
}

// Headline is one metric of the run summary: the stored metric, the label
// and unit shown, and the factor from the stored unit to the shown one.
type Headline struct {
	Metric, Label, Unit string
	Scale               float64
}

// Axis is one classification of an iteration: the result attribute that
// holds it, and the classes a recipe gives, from the best to the worst.
type Axis struct {
	Attr    string
	Classes []string
	// Good counts the leading classes a product can live with: the
	// filesystem mounted, repairing itself if it had to (Clean, AutoFix;
	// AutoRO while the device failed), and no data lost that was synced
	// (Intact, and LostUnsynced, which POSIX allows). The verdict ranks
	// candidates by their share of iterations in them.
	Good int
}

// ChartKind is a way to draw a recipe's results.
type ChartKind int

// The chart kinds the report draws.
const (
	// Bars: one group of bars per Bar and case, one bar per candidate,
	// each its mean over the iterations with a 95% confidence interval.
	Bars ChartKind = iota + 1
	// RateBySize: dd's rate against the block size (or against the file
	// size, for a sweep at one block size), a line per candidate and
	// direction, from the sizes in the case names; Bars name the rate
	// metrics, one per direction.
	RateBySize
	// LatencyCDF: the distribution of a latency as a CDF per case, a line
	// per candidate, joining min, the pNN percentiles and max.
	LatencyCDF
	// Outcomes: 100% stacked bars of the classes of each Outcomes axis,
	// one chart per axis.
	Outcomes
	// Phases: stacked bars of the parts of a whole, one bar per candidate
	// and case, each part the mean of a Bar's metric over the iterations
	// (a boot's phases from power-on to the prompt); parts no candidate
	// measured are left out.
	Phases
)

// Chart is one figure of each test of a recipe (of each case, with
// PerCase). In Slug and Title, {test}, {case} and {axis} stand for the
// test's name, the case and the outcome axis.
type Chart struct {
	Kind        ChartKind
	Slug, Title string
	// PerCase draws one chart per case instead of one per test.
	PerCase bool
	// Bars are the metrics drawn, with their labels.
	Bars []Bar
	// Measured keeps, per case, only the bars of metrics some candidate
	// measured; with OrFirst the first bar stays when none did, so that
	// the case's failures show.
	Measured, OrFirst bool
	// CaseLabels says when a group's label starts with its case.
	CaseLabels CaseLabel
	// Split draws groups whose values differ by more than ten times in
	// charts of their own (fio's 4KiB cases beside its 4MiB ones).
	Split bool
	// CV draws each candidate's coefficient of variation instead of its
	// mean; CVLabels writes it above the bars of means.
	CV, CVLabels bool
	// Across draws, when the results hold several contexts (kernels,
	// storage devices), each bar's metric across them: one chart per
	// bar, and one of the variation.
	Across bool
}

// Bar is one metric of a chart. An empty Label stands for the case's
// name. Slug ends the name of the chart of this bar alone (Across).
type Bar struct {
	Metric, Label, Slug string
}

// CaseLabel says when a bar group's label names its case.
type CaseLabel int

// When a group's label starts with its case.
const (
	// CaseWhenSeveral: "<case> <label>" when the test has several cases,
	// "<label>" otherwise.
	CaseWhenSeveral CaseLabel = iota
	// CaseAlways: "<case> <label>", or "<case>" alone when the case has
	// one bar.
	CaseAlways
	// CaseNever: "<label>" (one chart per case).
	CaseNever
)

// Timeout is the default timeout of one iteration of the recipe: the
// default of its timeout field, or runplan.DefaultStepTimeout.
func (r *Recipe) Timeout() time.Duration {
	if f, ok := r.Field("timeout"); ok {
		if s, ok := f.Default.(string); ok {
			if d, err := time.ParseDuration(s); err == nil {
				return d
			}
		}
	}
	return runplan.DefaultStepTimeout
}

// Order lists the recipe names in the order All returns them.
func Order() []string {
	out := make([]string, len(catalogue))
	for i, e := range catalogue {
		out[i] = e.name
	}
	return out
}

// All returns a fresh copy of every recipe, in the order the report and
// the documentation present them: the performance tests first, then the
// workloads, then the reliability tests.
func All() []*Recipe {
	out := make([]*Recipe, len(catalogue))
	for i, e := range catalogue {
		out[i] = e.build()
	}
	return out
}

// Metrics lists the metrics the recipe's report reads (its headline, its
// charts' bars, its Settle and More), each once, in that order.
func (r *Recipe) Metrics() []string {
	var out []string
	add := func(m string) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, h := range r.Report.Headline {
		add(h.Metric)
	}
	for _, c := range r.Report.Charts {
		for _, b := range c.Bars {
			add(b.Metric)
		}
	}
	for _, m := range r.Report.Settle {
		add(m)
	}
	for _, m := range r.Report.More {
		add(m)
	}
	return out
}

// Settles says whether a test of the recipe may take a settle block: it
// repeats a measurement (it has a count) whose results are numbers, not
// outcome classes.
func (r *Recipe) Settles() bool { return r.Count != "" && len(r.Report.Outcomes) == 0 }

// SettleChoices are the metrics a settle block may name: those the
// runner measures itself. A recipe whose boots the host times lists
// them in Settle and More; the others, every metric they report.
func (r *Recipe) SettleChoices() []string {
	if r.HostTimesBoot {
		return append(slices.Clone(r.Report.Settle), r.Report.More...)
	}
	return r.Metrics()
}

// SettleMetrics are the metrics a settle block watches when it names
// none: the headline metrics, else those of the first chart.
func (r *Recipe) SettleMetrics() []string {
	if len(r.Report.Settle) > 0 {
		return slices.Clone(r.Report.Settle)
	}
	var out []string
	for _, h := range r.Report.Headline {
		out = append(out, h.Metric)
	}
	if len(out) == 0 && len(r.Report.Charts) > 0 {
		for _, b := range r.Report.Charts[0].Bars {
			out = append(out, b.Metric)
		}
	}
	return out
}

// Classes returns what one result counts on the outcome axis attr: its
// attribute once, or with OutcomeCounts the counts of its metrics
// <attr>.<class>. ok is false when the result classified nothing.
func (r Report) Classes(attr string, res *resultframe.Result) (counts map[string]int, ok bool) {
	counts = map[string]int{}
	if r.OutcomeCounts {
		for _, m := range res.Metrics {
			if class, found := strings.CutPrefix(m.Name, attr+"."); found && m.Value >= 1 {
				counts[class] += int(m.Value)
			}
		}
		return counts, len(counts) > 0
	}
	v, found := res.Attrs[attr]
	if !found {
		if res.Status != resultframe.StatusOK {
			return nil, false // a failed run that classified nothing
		}
		v = NotRecorded
	}
	counts[v] = 1
	return counts, true
}

// NotRecorded stands for an outcome attribute a result does not carry.
const NotRecorded = "(not recorded)"
