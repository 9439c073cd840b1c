package recipes

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/fields"
)

// All lists every recipe once, in the catalogue's order.
func TestAllMatchesNames(t *testing.T) {
	var names []string
	for _, r := range All() {
		names = append(names, r.Name)
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if !slices.Equal(sorted, Names()) {
		t.Errorf("All() = %v, Names() = %v", names, Names())
	}
	if names[0] != "fio" || names[len(names)-1] != "crash_states" {
		t.Errorf("All() order %v: the performance tests first, the reliability tests last", names)
	}
}

// Every trait a recipe declares is one the other packages can act on: a
// count field that exists, the boot patterns the host needs, charts with
// their metrics, kernel features with their reason.
func TestTraitsAreUsable(t *testing.T) {
	for _, r := range All() {
		if r.Schema < 1 {
			t.Errorf("%s: Schema %d", r.Name, r.Schema)
		}
		if r.Count != "" {
			if f, ok := r.Field(r.Count); !ok || f.Kind != fields.Int || f.Default == nil {
				t.Errorf("%s: Count names %q, not an Int field with a default", r.Name, r.Count)
			}
		} else if _, ok := r.Field("iterations"); ok {
			t.Errorf("%s: has an iterations field but no Count", r.Name)
		}
		if r.HostTimesBoot {
			for _, f := range []string{"root_mount_pattern", "prompt_pattern"} {
				if fl, ok := r.Field(f); !ok || fl.Kind != fields.String {
					t.Errorf("%s: HostTimesBoot needs a string field %s", r.Name, f)
				}
			}
		}
		if r.Timeout() <= 0 {
			t.Errorf("%s: Timeout %v", r.Name, r.Timeout())
		}
		for _, k := range r.Needs.Kernel {
			if k.Why == "" || len(k.Config) == 0 {
				t.Errorf("%s: kernel need %+v lacks its reason or options", r.Name, k)
			}
			for _, c := range k.Config {
				if strings.HasPrefix(c, "CONFIG_") || c != strings.ToUpper(c) {
					t.Errorf("%s: kernel option %q: want the name without CONFIG_", r.Name, c)
				}
			}
		}
		for _, h := range r.Report.Headline {
			if h.Metric == "" || h.Label == "" || h.Scale == 0 {
				t.Errorf("%s: headline %+v", r.Name, h)
			}
		}
		for _, a := range r.Report.Outcomes {
			if a.Attr == "" || len(a.Classes) == 0 {
				t.Errorf("%s: outcome axis %+v", r.Name, a)
			}
		}
		checkCharts(t, r)
	}
}

func checkCharts(t *testing.T, r *Recipe) {
	slugs := map[string]bool{}
	for _, c := range r.Report.Charts {
		what := r.Name + " chart " + c.Slug
		if slugs[c.Slug] {
			t.Errorf("%s: slug used twice", what)
		}
		slugs[c.Slug] = true
		if !strings.Contains(c.Slug, "{test}") || !strings.Contains(c.Title, "{test}") {
			t.Errorf("%s: slug and title must name the test", what)
		}
		if c.PerCase && (!strings.Contains(c.Slug, "{case}") || !strings.Contains(c.Title, "{case}")) {
			t.Errorf("%s: a chart per case must name the case", what)
		}
		switch c.Kind {
		case Bars, RateBySize, Phases:
			if len(c.Bars) == 0 {
				t.Errorf("%s: no bars", what)
			}
		case LatencyCDF:
		case Outcomes:
			if len(r.Report.Outcomes) == 0 || !strings.Contains(c.Slug, "{axis}") || !strings.Contains(c.Title, "{axis}") {
				t.Errorf("%s: an outcome chart needs the recipe's axes and names its axis", what)
			}
		default:
			t.Errorf("%s: kind %d", what, c.Kind)
		}
		for _, b := range c.Bars {
			if b.Metric == "" || (c.Across && b.Slug == "") {
				t.Errorf("%s: bar %+v", what, b)
			}
		}
		if c.OrFirst && !c.Measured {
			t.Errorf("%s: OrFirst without Measured", what)
		}
	}
}

func TestCitation(t *testing.T) {
	got := Citation{ELC2015, `p.65-68 "Boot time"`}.String()
	want := `T. Lelong, "Filesystem considerations for embedded devices", Embedded Linux Conference 2015, p.65-68 "Boot time"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, r := range All() {
		if s := r.Source.String(); strings.Contains(s, ".txt") || !strings.Contains(s, `"`) {
			t.Errorf("%s: cites %q; cite the study by its title", r.Name, s)
		}
	}
}
