package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report is written for whatever run and capture store: metrics near the
// float range's end, a Welch test of two constant samples, test and case
// names far longer than a file name may be, markup in the names.
func TestReportOfExtremeResults(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("very-long-test-name-", 12) // 240 characters
	var lines []string
	seq := 0
	add := func(variant, test, cas string, v float64) {
		seq++
		lines = append(lines, fmt.Sprintf(`{"v":1,"run":"r-%s","seq":%d,"recipe":"fio","name":%q,"case":%q,"variant":%q,"iter":%d,"status":"ok","metrics":[{"name":"read_bw","value":%g,"unit":"KiB/s"}]}`,
			variant, seq, test, cas, variant, seq, v))
	}
	for i := 0; i < 3; i++ {
		add("a", long, long+"-case", 1e100*float64(i+1))
		add("b", long, long+"-case", 1e100)
		add("a", "huge", "max", math.MaxFloat64)
		add("b", "huge", "max", -math.MaxFloat64/float64(i+1))
		add("a", "<script>", "c&d", 1.5e300)
		add("b", "<script>", "c&d", 1.5e300)
	}
	in := filepath.Join(dir, "results.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := Load([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(ins, Options{})
	out := filepath.Join(dir, "report")
	files, err := rep.Write(out)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no files written")
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || !json.Valid(b) {
		t.Fatalf("summary.json is not JSON (%v):\n%.500s", err, b)
	}
	for _, r := range rep.Rows {
		if math.IsInf(r.Mean, 0) || math.IsNaN(r.Mean) || math.IsInf(r.Stddev, 0) {
			t.Errorf("%s/%s %s: mean %v, stddev %v", r.Test, r.Variant, r.Metric, r.Mean, r.Stddev)
		}
	}
	charts, _ := filepath.Glob(filepath.Join(out, "charts", "*.svg"))
	if len(charts) == 0 {
		t.Error("no charts")
	}
	for _, c := range charts {
		if n := len(filepath.Base(c)); n > 128 {
			t.Errorf("chart file name of %d bytes: %s", n, filepath.Base(c))
		}
	}
	if html, _ := os.ReadFile(filepath.Join(out, "report.html")); strings.Contains(string(html), "<script>") {
		t.Error("a test name reached the HTML unescaped")
	}
}

func TestSummarizeDoesNotOverflow(t *testing.T) {
	s := Summarize([]float64{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64 / 2})
	if math.IsInf(s.Mean, 0) || math.IsInf(s.Stddev, 0) || math.IsInf(s.Median, 0) || s.Mean < 1e308 {
		t.Errorf("summary %+v", s)
	}
	// Ordinary values are summed as they are.
	a, b, c := 0.1, 0.2, 0.3
	if s := Summarize([]float64{a, b, c}); s.Mean != (a+b+c)/3 {
		t.Errorf("mean %v, want %v", s.Mean, (a+b+c)/3)
	}
}
