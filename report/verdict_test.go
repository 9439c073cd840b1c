package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// verdictInput is results of candidates: per variant, recipe, test, case
// and metric (with its unit), the values of its iterations.
type verdictValue struct {
	variant, recipe, test, cas, metric, unit string
	values                                   []float64
}

func verdictReport(t *testing.T, opt Options, vals ...verdictValue) *Report {
	t.Helper()
	var lines []string
	seq := 0
	for _, v := range vals {
		for i, x := range v.values {
			seq++
			lines = append(lines, fmt.Sprintf(`{"v":1,"run":"r-%s","seq":%d,"recipe":%q,"name":%q,"case":%q,"variant":%q,"iter":%d,"status":"ok","metrics":[{"name":%q,"value":%v,"unit":%q}]}`,
				v.variant, seq, v.recipe, v.test, v.cas, v.variant, i+1, v.metric, x, v.unit))
		}
	}
	ins, err := Load([]string{writeFile(t, t.TempDir(), "r.jsonl", strings.Join(lines, "\n")+"\n")})
	if err != nil {
		t.Fatal(err)
	}
	return Build(ins, opt)
}

func boot(variant string, values ...float64) verdictValue {
	return verdictValue{variant, "boot_time", "rootfs", "single", "host_boot", "s", values}
}

func seqRead(variant string, values ...float64) verdictValue {
	return verdictValue{variant, "fio", "seq", "read-4MiB-direct", "read_bw", "KiB/s", values}
}

func ranking(t *testing.T, rep *Report, criterion, metric string) *Ranking {
	t.Helper()
	for _, rk := range rep.Verdict.Rankings {
		if rk.Criterion == criterion && rk.Metric == metric {
			return rk
		}
	}
	t.Fatalf("no %s ranking by %s", criterion, metric)
	return nil
}

// Hand-computed: a and b have the same mean boot (1.0 s): the data cannot
// separate them; c boots in 2.0 s, sd 0.1 like them: Welch t = 1.0 /
// sqrt(2 * 0.01 / 3) = 12.25 on 4 degrees of freedom, p = 0.00026.
func TestVerdictIndistinguishable(t *testing.T) {
	rep := verdictReport(t, Options{},
		boot("c", 2.0, 2.1, 1.9), boot("b", 1.05, 0.95, 1.0), boot("a", 1.0, 1.1, 0.9))
	rk := ranking(t, rep, "boot time", "host_boot")
	if got, want := rk.Line(), "a ≈ b > c (+100.0%, p<0.001)"; got != want {
		t.Errorf("ranking %q, want %q", got, want)
	}
	if got := rk.Separation(); got != "the data cannot separate a, b" {
		t.Errorf("separation %q", got)
	}
	if p := rk.Steps[0].P; math.Abs(p-0.000256) > 0.00003 {
		t.Errorf("p = %v, want 0.00026", p)
	}
	var places []string
	for _, p := range rep.Verdict.Places {
		places = append(places, fmt.Sprintf("%s %s %.2f", p.Variant, placeText(p.Best[0], p.Worst[0]), p.Score))
	}
	if want := []string{"a 1st 1.00", "b 1st 1.00", "c 2nd 2.00"}; !slices.Equal(places, want) {
		t.Errorf("places %q, want %q", places, want)
	}
	html := rep.HTML()
	if !strings.Contains(html, `<section id="verdict">`) || !strings.Contains(html, `<a href="#`+rk.Chart+`">chart</a>`) || rk.Chart == "" {
		t.Errorf("the HTML verdict lacks the ranking's link to its chart %q", rk.Chart)
	}
}

// Hand-computed: fast reads at 102.4 MB/s (100000 KiB/s) and the others
// at 51.2, but fast boots in 2 s: "boot under 1.5 s" excludes it, and the
// candidates that meet the requirement are a, then b.
func TestVerdictRequirementExcludesFastest(t *testing.T) {
	max := 1.5
	req := Requirement{Name: "boot under 1.5 s", Recipe: "boot_time", Metric: "host_boot", Max: &max}
	rep := verdictReport(t, Options{Requirements: []Requirement{req}, Weights: map[string]float64{"sequential bandwidth": 3}},
		seqRead("fast", 100000, 101000, 99000), seqRead("a", 50000, 50500, 49500), seqRead("b", 50000, 50600, 49400),
		boot("fast", 2.0, 2.1, 1.9), boot("a", 1.0, 1.1, 0.9), boot("b", 1.2, 1.3, 1.1))
	rk := ranking(t, rep, "sequential bandwidth", "read_bw")
	if got := rk.Groups[0][0]; got.Variant != "fast" || math.Abs(got.Value-102.4) > 1e-9 {
		t.Errorf("best %+v, want fast at 102.4 MB/s", got)
	}
	if got, want := rk.Line(), "fast > a ≈ b (-50.0%, p<0.001)"; got != want {
		t.Errorf("ranking %q, want %q", got, want)
	}
	// Overall, bandwidth weighs 3 (the spec's) and boot time 2 (the
	// default). Boot: a ≈ b (1.0 against 1.2 s, t = 2.45 on 4 degrees of
	// freedom, p = 0.07) > fast. fast: (1 * 3 + 2 * 2) / 5 = 1.4; a and
	// b: (2 * 3 + 1 * 2) / 5 = 1.6.
	if got := requirementsLine(rep.Verdict, rep.Contexts[0]); !strings.HasSuffix(got, "Candidates that meet them all, best overall first: a, b.") {
		t.Errorf("requirements line %q", got)
	}
	for _, p := range rep.Verdict.Places {
		switch p.Variant {
		case "fast":
			if p.Meets || len(p.Failures) != 1 || p.Failures[0] != "boot under 1.5 s: 2.000 s in rootfs/single" {
				t.Errorf("fast: meets %v, failures %q", p.Meets, p.Failures)
			}
			if p.Score != 1.4 {
				t.Errorf("fast: score %v, want 1.4", p.Score)
			}
		case "a", "b":
			if !p.Meets || p.Score != 1.6 {
				t.Errorf("%s: meets %v (%q), score %v, want 1.6", p.Variant, p.Meets, p.Failures, p.Score)
			}
		}
	}
	if rep.Verdict.Places[0].Variant != "fast" {
		t.Errorf("overall first %s, want fast", rep.Verdict.Places[0].Variant)
	}
	// A requirement nothing measured is not met.
	none := Requirement{Name: "fsck", Recipe: "fsck_time", Metric: "fsck_time", Max: &max}
	rep = verdictReport(t, Options{Requirements: []Requirement{none}}, boot("a", 1, 1.1))
	if p := rep.Verdict.Places[0]; p.Meets || p.Failures[0] != "fsck: not measured" {
		t.Errorf("unmeasured requirement: meets %v, %q", p.Meets, p.Failures)
	}
}

// A candidate with one result cannot be ranked, and says so.
func TestVerdictUnranked(t *testing.T) {
	rep := verdictReport(t, Options{}, boot("a", 1.0, 1.1), boot("b", 1.2))
	if got, want := ranking(t, rep, "boot time", "host_boot").Line(), "a; not ranked (fewer than two results): b"; got != want {
		t.Errorf("ranking %q, want %q", got, want)
	}
}

// Fisher's exact test against published values: R's fisher.test on
// [[3, 1], [1, 3]] gives p = 0.4857, and the lady tasting tea table
// [[1, 9], [11, 3]] (Wikipedia) p = 0.002759.
func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int
		want       float64
	}{{3, 1, 1, 3, 0.4857}, {1, 9, 11, 3, 0.002759}, {5, 0, 5, 0, 1}, {10, 0, 0, 10, 1.0825e-05}} {
		if got := FisherExact(c.a, c.b, c.c, c.d); math.Abs(got-c.want) > 1e-4*math.Max(1, c.want*10) {
			t.Errorf("Fisher %v: %v, want %v", c, got, c.want)
		}
	}
}

// A test that cannot apply to a candidate shows as not applicable, never
// as failed.
func TestNotApplicableIsNoFailure(t *testing.T) {
	lines := []string{
		`{"v":1,"run":"r-a","seq":1,"recipe":"fsck_time","name":"bench","case":"single","variant":"ext4","iter":1,"status":"ok","metrics":[{"name":"fsck_time","value":0.5,"unit":"s"}]}`,
		`{"v":1,"run":"r-b","seq":1,"recipe":"fsck_time","name":"bench","case":"single","variant":"nilfs2","iter":1,"status":"skipped","error":"not applicable: nilfs2 has no offline checker for fsck_time to run","attrs":{"not_applicable":"nilfs2 has no offline checker for fsck_time to run"}}`,
	}
	ins, err := Load([]string{writeFile(t, t.TempDir(), "r.jsonl", strings.Join(lines, "\n")+"\n")})
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(ins, Options{})
	if len(rep.Problems) != 1 || rep.Problems[0].StatusText() != "not applicable" {
		t.Fatalf("problems %+v", rep.Problems)
	}
	html := rep.HTML()
	if !strings.Contains(html, "<td>not applicable</td>") || strings.Contains(html, "<td>failed</td>") {
		t.Errorf("the problems table does not say not applicable")
	}
	var missing []string
	for _, ch := range rep.Charts {
		if ch.Bars == nil {
			continue
		}
		for _, cells := range ch.Bars.Cells {
			for _, c := range cells {
				if c.Missing != "" {
					missing = append(missing, c.Missing)
				}
			}
		}
	}
	if len(missing) == 0 || slices.ContainsFunc(missing, func(m string) bool { return m != "n/a" }) {
		t.Errorf("chart marks %q, want n/a for every bar of nilfs2", missing)
	}
}
