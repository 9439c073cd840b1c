package spec_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

// expectation is one "# ERROR: summary" (or "# WARNING: summary") marker:

// contain the text.
type expectation struct {
	line     int
	severity string
	summary  string
}

var marker = regexp.MustCompile(`(ERROR|WARNING): ([^#]+)`)

func expectations(t *testing.T, src []byte) []expectation {
	var out []expectation
	for i, line := range strings.Split(string(src), "\n") {
		_, comment, ok := strings.Cut(line, "# ")
		if !ok {
			continue
		}
		for _, m := range marker.FindAllStringSubmatch(comment, -1) {
			out = append(out, expectation{line: i + 1, severity: strings.ToLower(m[1]), summary: strings.TrimSpace(m[2])})
		}
	}
	return out
}

// check loads a fixture the way `fsbench validate` does.
func check(path string) (*spec.Spec, hcl.Diagnostics) {
	opts := spec.Options{}
	if vars, err := os.ReadFile(strings.TrimSuffix(path, ".fsb.hcl") + ".vars"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(vars)), "\n") {
			if line != "" {
				opts.Vars = append(opts.Vars, line)
			}
		}
	}
	s, _, diags := plan.Load(path, opts)
	return s, diags
}

// TestInvalidSpecs loads every spec in testdata/invalid and checks that
// the diagnostics are exactly the ones its markers announce, each with a
// position on the marked line. The rendered text (with columns and source
// lines) is compared with a golden file.
func TestInvalidSpecs(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.fsb.hcl")
	if len(files) < 40 {
		t.Fatalf("want at least 40 invalid specs, have %d", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := expectations(t, src)
			if len(want) == 0 {
				t.Fatalf("%s has no # ERROR: marker", path)
			}
			s, diags := check(path)
			var got []expectation
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without a position: %s: %s", d.Summary, d.Detail)
					continue
				}
				if d.Subject.Filename != path {
					t.Errorf("diagnostic in %s, want %s: %s", d.Subject.Filename, path, d.Summary)
				}
				sev := "error"
				if d.Severity == hcl.DiagWarning {
					sev = "warning"
				}
				got = append(got, expectation{line: d.Subject.Start.Line, severity: sev, summary: d.Summary})
			}
			matchExpectations(t, want, got, diags)
			var buf bytes.Buffer
			_ = diag.WriteText(&buf, diags, s.Sources)
			golden.Check(t, strings.TrimSuffix(path, ".fsb.hcl")+".golden", buf.Bytes(), *update)
		})
	}
}

func matchExpectations(t *testing.T, want, got []expectation, diags hcl.Diagnostics) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.line == w.line && g.severity == w.severity && strings.Contains(strings.ToLower(g.summary), strings.ToLower(w.summary)) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("line %d: want %s %q, not reported", w.line, w.severity, w.summary)
		}
	}
	for i, g := range got {
		if !used[i] {
			t.Errorf("line %d: unexpected %s %q: %s", g.line, g.severity, g.summary, detailOf(diags, g))
		}
	}
}

func detailOf(diags hcl.Diagnostics, e expectation) string {
	for _, d := range diags {
		if d.Subject != nil && d.Subject.Start.Line == e.line && d.Summary == e.summary {
			return d.Detail
		}
	}
	return ""
}

// TestDiagnosticsSorted checks the order promise on a spec with many
// errors: by file, then position.
func TestDiagnosticsSorted(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.fsb.hcl")
	for _, path := range files {
		_, diags := check(path)
		ok := sort.SliceIsSorted(diags, func(i, j int) bool {
			a, b := diags[i].Subject, diags[j].Subject
			if a == nil || b == nil {
				return a != nil && b == nil
			}
			return a.Filename < b.Filename || a.Filename == b.Filename && a.Start.Byte < b.Start.Byte
		})
		if !ok {
			t.Errorf("%s: diagnostics not sorted by position: %v", path, summaries(diags))
		}
	}
}

func summaries(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		line := 0
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		out = append(out, fmt.Sprintf("%d:%s", line, d.Summary))
	}
	return out
}
