package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixtureNamed(t *testing.T, name string) fixture {
	t.Helper()
	for _, fx := range fixtures {
		if fx.name == name {
			return fx
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture{}
}

func findRow(rep *Report, recipe, cas, variant, metric string) *Row {
	for _, r := range rep.Rows {
		if r.Recipe == recipe && r.Case == cas && r.Variant == variant && r.Metric == metric {
			return r
		}
	}
	return nil
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okLine = `{"v":1,"run":"r1","seq":%d,"recipe":"boot_time","name":"rootfs","case":"single","variant":"ext4","iter":1,"status":"ok","metrics":[{"name":"host_boot","value":0.5,"unit":"s"}]}`

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := strings.ReplaceAll(okLine, "%d", "1")
	for _, c := range []struct {
		name, text, want string
	}{
		{"corrupt.jsonl", good + "\n{\"v\":1,\"run\":\n", "corrupt.jsonl:2: not a result"},
		{"garbage.jsonl", "\n\nhello\n", "garbage.jsonl:3: not a result"},
		{"unknown.jsonl", strings.Replace(good, `"iter":1`, `"iter":1,"colour":"red"`, 1), `unknown.jsonl:1: not a result: json: unknown field "colour"`},
		{"newer.jsonl", strings.Replace(good, `"v":1`, `"v":2`, 1), "newer.jsonl:1: result schema version 2 is newer than this fsbench understands (1): upgrade fsbench"},
		{"status.jsonl", strings.Replace(good, `"ok"`, `"fine"`, 1), `status.jsonl:1: unknown status "fine"`},
	} {
		_, err := Load([]string{writeFile(t, dir, c.name, c.text)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.jsonl")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := writeFile(t, dir, "empty.jsonl", "\n")
	if _, err := Load([]string{empty}); !errors.Is(err, ErrNoResults) || !strings.Contains(err.Error(), "empty.jsonl") {
		t.Errorf("no results: %v", err)
	}
	// The same file twice counts once.
	p := writeFile(t, dir, "good.jsonl", good+"\n")
	ins, err := Load([]string{p, p, empty})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins[0].Results) != 1 || len(ins[1].Results) != 0 || ins[1].Duplicates != 1 {
		t.Errorf("duplicates: %+v", ins)
	}
	// A directory stands for its results files, in lexical order.
	ins, err = Load([]string{"testdata/quickstart"})
	if err != nil || len(ins) != 5 || ins[0].Path != filepath.Join("testdata", "quickstart", "quickstart-btrfs.jsonl") {
		t.Errorf("directory: %v, %d inputs", err, len(ins))
	}
	if _, err := Load([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no results files (*.jsonl)") {
		t.Errorf("empty directory: %v", err)
	}
}

// The quickstart's nilfs2 ran out of space: its failed results are listed
// with their errors and counted, and appear in no statistic.
func TestFailuresAreListedNotAveraged(t *testing.T) {
	rep := fixtureNamed(t, "quickstart").build(t)
	ok, failed, skipped := rep.Counts()
	if ok != 65 || failed != 5 || skipped != 0 {
		t.Errorf("counts %d ok, %d failed, %d skipped; want 65, 5, 0", ok, failed, skipped)
	}
	if len(rep.Problems) != 5 {
		t.Fatalf("%d problems, want 5", len(rep.Problems))
	}
	for _, p := range rep.Problems {
		if p.Variant != "nilfs2" || !strings.Contains(p.Error, "no space left on device") {
			t.Errorf("problem %+v", p)
		}
	}
	for _, r := range rep.Rows {
		if r.Variant == "nilfs2" && (r.Recipe == "mount_time" || strings.HasPrefix(r.Case, "write-")) {
			t.Errorf("a failed result was aggregated: %s", r)
		}
	}
	if r := findRow(rep, "fio", "read-4MiB-direct", "nilfs2", "read_bw"); r == nil || r.N != 1 {
		t.Errorf("nilfs2's measured fio cases are kept: %v", r)
	}
	html := rep.HTML()
	if !strings.Contains(html, "mkdir /mnt/bench/fsbench-fill: no space left on device") {
		t.Error("the HTML does not list the failures' errors")
	}
	// The closing plan-complete marker is no measurement.
	for _, r := range rep.Rows {
		if r.Recipe == "fsbench" {
			t.Errorf("the plan-complete marker was aggregated: %s", r)
		}
	}
	if rep.Inputs[0].Complete != 1 {
		t.Errorf("plan complete not seen: %+v", rep.Inputs[0])
	}
}

func TestStatisticsOfRealBootTimes(t *testing.T) {
	rep := fixtureNamed(t, "quickstart").build(t)
	r := findRow(rep, "boot_time", "single", "ext4", "host_boot")
	if r == nil {
		t.Fatal("no ext4 host_boot row")
	}
	// 0.632176036, 0.687813511, 0.831812801 s.
	if r.N != 3 || !near(r.Mean, 0.71726744933, 1e-9) || !near(r.Median, 0.687813511, 1e-12) ||
		!near(r.Stddev, 0.10302602, 1e-8) || !near(r.CV, 14.36368, 1e-5) ||
		!near(r.CILow, 0.46133663, 1e-6) || !near(r.CIHigh, 0.97319827, 1e-6) {
		t.Errorf("ext4 host_boot: %+v", r.Summary)
	}
	if bw := findRow(rep, "fio", "randread-4MiB-direct", "ext4", "read_bw"); bw == nil || bw.Unit != "MB/s" || !near(bw.Mean, 352344*1.024/1000, 1e-9) {
		t.Errorf("fio bandwidth in MB/s: %+v", bw)
	}
}

func TestContextsAreNotPooled(t *testing.T) {
	rep := fixtureNamed(t, "contexts").build(t)
	if len(rep.Contexts) != 2 || rep.Contexts[0].Value("kernel") == rep.Contexts[1].Value("kernel") {
		t.Fatalf("contexts %+v", rep.Contexts)
	}
	var n int
	for _, r := range rep.Rows {
		if r.Metric == "host_boot" {
			n++
			if r.N != 3 {
				t.Errorf("%s in context %s pools %d iterations, want 3", r, r.Context.ID, r.N)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d host_boot rows, want one per context", n)
	}
	if w := rep.contextWarning(); !strings.Contains(w, "differ in kernel") || !strings.Contains(rep.HTML(), "never pooled") {
		t.Errorf("warning %q", w)
	}
	for _, ch := range rep.Charts {
		if ch.Context == rep.Across {
			continue // named by group (TestBootTimeAcrossKernels)
		}
		if !strings.Contains(ch.SVG(), "kernel "+ch.Context.Value("kernel")) {
			t.Errorf("chart %s does not name its kernel", ch.Slug)
		}
	}
}

func TestCompareMarksRegressions(t *testing.T) {
	rep := fixtureNamed(t, "compare").build(t)
	c := rep.Comparison
	if c == nil {
		t.Fatal("no comparison")
	}
	verdicts := map[string]ChangeVerdict{}
	for _, ch := range c.Changes {
		verdicts[ch.New.Variant+" "+ch.New.Metric+" "+ch.New.Case] = ch.Verdict
	}
	for k, want := range map[string]ChangeVerdict{
		"ext4 read_bw randread-4KiB-direct":    ChangeRegression,  // 20% lower bandwidth
		"f2fs read_bw randread-4KiB-direct":    ChangeImprovement, // 25% higher
		"ext4 mount_time single":               ChangeRegression,  // 60% slower
		"f2fs mount_time single":               ChangeNone,
		"ext4 host_boot single":                ChangeNone,
		"ext4 write_bw write-4MiB-direct":      ChangeUntested, // one iteration
		"ext4 read_bytes randread-4KiB-direct": "",
	} {
		if verdicts[k] != want {
			t.Errorf("%s: %q, want %q", k, verdicts[k], want)
		}
	}
	if n := len(c.Regressions()); n != 2 {
		t.Errorf("%d regressions, want 2", n)
	}
	lines := strings.Join(c.contextChangeLines(), "\n")
	if !strings.Contains(lines, "kernel: 6.1.0-57-amd64 → 6.1.0-58-amd64") {
		t.Errorf("context change not named: %s", lines)
	}
}

func TestOutcomes(t *testing.T) {
	rep := fixtureNamed(t, "synthetic").build(t)
	counts := map[string]int{}
	for _, o := range rep.Outcomes {
		total := 0
		for _, n := range o.Counts {
			total += n
		}
		counts[o.Recipe+" "+o.Axis] += total
		if o.Recipe == "power_loss" && total != 20 {
			t.Errorf("%s %s %s: %d iterations, want 20", o.Case, o.Variant, o.Axis, total)
		}
		if o.Recipe == "dm_flakey" && total != 15 {
			t.Errorf("%s %s %s: %d iterations, want 15", o.Case, o.Variant, o.Axis, total)
		}
	}
	if counts["power_loss consistency"] != 120 || counts["dm_flakey data"] != 90 {
		t.Errorf("outcome totals %v", counts)
	}
	// The Fatal power cut ended failed: counted as an outcome, and listed.
	var fatal bool
	for _, p := range rep.Problems {
		fatal = fatal || (p.Recipe == "power_loss" && p.Variant == "ext4-nobarrier")
	}
	if !fatal {
		t.Error("the failed power_loss iteration is not listed")
	}
}

func TestChartsOnlyForData(t *testing.T) {
	rep := fixtureNamed(t, "quickstart").build(t)
	var kinds []string
	for _, ch := range rep.Charts {
		kinds = append(kinds, ch.Slug)
	}
	got := strings.Join(kinds, " ")
	want := "A-01-fio-bandwidth-bandwidth-1 A-02-fio-bandwidth-bandwidth-2 A-03-fio-cpu-bandwidth A-04-fio-cpu-cost-bandwidth " +
		"A-05-boot-time-rootfs A-06-boot-variation-rootfs A-07-mount-time-bench"
	if got != want {
		t.Errorf("charts\n%s\nwant\n%s", got, want)
	}
}

func TestDirections(t *testing.T) {
	for _, c := range []struct {
		metric, unit string
		want         Direction
	}{
		{"read_bw", "MB/s", HigherIsBetter}, {"tps", "tx/s", HigherIsBetter}, {"seq_create", "/s", HigherIsBetter},
		{"host_boot", "s", LowerIsBetter}, {"p99.9", "us", LowerIsBetter}, {"usr_cpu", "%", LowerIsBetter},
		{"put_block_cpu", "%", LowerIsBetter}, {"fs_used", "B", LowerIsBetter}, {"kthreads_added", "", LowerIsBetter},
		{"read_bytes", "B", NoDirection}, {"fill_used", "%", NoDirection}, {"read_runtime", "ms", NoDirection},
	} {
		if got := DirectionOf(c.metric, c.unit); got != c.want {
			t.Errorf("DirectionOf(%s, %s) = %v, want %v", c.metric, c.unit, got, c.want)
		}
	}
}

func TestDDCase(t *testing.T) {
	for _, c := range []struct {
		name      string
		total, bs int64
		ok        bool
	}{
		{"48MiB-4KiB", 48 << 20, 4096, true}, {"1MiB", 0, 1 << 20, true},
		{"total=10MiB,bs=1MiB", 10 << 20, 1 << 20, true}, {"single", 0, 0, false},
	} {
		total, bs, ok := ddCase(c.name)
		if total != c.total || bs != c.bs || ok != c.ok {
			t.Errorf("ddCase(%q) = %d, %d, %v", c.name, total, bs, ok)
		}
	}
}

// The page needs nothing but itself: no script, no stylesheet or image
// to fetch, every chart inline.
func TestHTMLIsSelfContained(t *testing.T) {
	rep := fixtureNamed(t, "synthetic").build(t)
	page := rep.HTML()
	for _, bad := range []string{"<script", "<link", "<img", "src=", "url(", `href="http`, "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(page, `<svg xmlns="http://www.w3.org/2000/svg" class="chart"`); n != len(rep.Charts) || n == 0 {
		t.Errorf("%d inline charts, want %d", n, len(rep.Charts))
	}
	md := rep.Markdown()
	for _, ch := range rep.Charts {
		if !strings.Contains(md, "]("+ChartsDir+"/"+ch.Slug+".svg)") {
			t.Errorf("the Markdown does not show %s", ch.Slug)
		}
	}
}

// A dd_sweep over file sizes at one block size (the 10/50/100MiB test of
// a real QEMU run) is drawn against the file size, one line per
// direction, its points in increasing size.
func TestDDFileSizeSweep(t *testing.T) {
	ins, err := Load([]string{"testdata/ddsizes/f2fs.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(ins, Options{})
	var chart *Chart
	for _, ch := range rep.Charts {
		if strings.HasSuffix(ch.Slug, "dd-sweep-writezero") {
			chart = ch
		}
	}
	if chart == nil || !strings.Contains(chart.Title, "file size") || chart.Lines.XUnit != "file size" {
		t.Fatalf("writezero chart: %+v", chart)
	}
	if len(chart.Lines.Series) != 2 {
		t.Fatalf("%d lines, want write and read", len(chart.Lines.Series))
	}
	for _, s := range chart.Lines.Series {
		if len(s.Points) != 3 || s.Points[0].X != 4<<20 || s.Points[2].X != 16<<20 {
			t.Errorf("%s: points %v", s.Name, s.Points)
		}
	}
}
