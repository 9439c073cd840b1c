package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// result is one line of a results file, for the tests that need failed
// results, outcomes or context attributes.
type result struct {
	variant, recipe, test, cas string
	status, err                string
	metric, unit               string
	value                      float64
	attrs                      map[string]string
}

// resultsReport builds the report of results, numbering their runs'
// iterations in order.
func resultsReport(t *testing.T, opt Options, rs ...result) *Report {
	t.Helper()
	var lines []string
	iter := map[string]int{}
	for i, r := range rs {
		k := r.variant + "/" + r.recipe + "/" + r.test + "/" + r.cas
		iter[k]++
		status := r.status
		if status == "" {
			status = "ok"
		}
		line := map[string]any{"v": 1, "run": "r-" + r.variant, "seq": i + 1, "recipe": r.recipe, "name": r.test, "case": r.cas,
			"variant": r.variant, "iter": iter[k], "status": status}
		if r.err != "" {
			line["error"] = r.err
		}
		if r.metric != "" && status == "ok" {
			line["metrics"] = []map[string]any{{"name": r.metric, "value": r.value, "unit": r.unit}}
		}
		if r.attrs != nil {
			line["attrs"] = r.attrs
		}
		b, err := json.Marshal(line)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	ins, err := Load([]string{writeFile(t, t.TempDir(), "r.jsonl", strings.Join(lines, "\n")+"\n")})
	if err != nil {
		t.Fatal(err)
	}
	return Build(ins, opt)
}

func boots(variant string, values ...float64) []result {
	var out []result
	for _, v := range values {
		out = append(out, result{variant: variant, recipe: "boot_time", test: "rootfs", cas: "single", metric: "host_boot", unit: "s", value: v})
	}
	return out
}

func failedRun(variant, recipe, test, cas, err string) result {
	return result{variant: variant, recipe: recipe, test: test, cas: cas, status: "failed", err: err}
}

// cuts are n power_loss iterations of a candidate, lost of which lost
// data they had synced.
func cuts(variant string, n, lost int) []result {
	var out []result
	for i := range n {
		data := "Intact"
		if i < lost {
			data = "LostSynced"
		}
		out = append(out, result{variant: variant, recipe: "power_loss", test: "cut", cas: "async-small_files",
			metric: "cut_after", unit: "s", value: 4, attrs: map[string]string{"consistency": "Clean", "data": data}})
	}
	return out
}

func placeOf(t *testing.T, rep *Report, variant string) *Place {
	t.Helper()
	for _, p := range rep.Verdict.Places {
		if p.Variant == variant {
			return p
		}
	}
	t.Fatalf("no place for %s", variant)
	return nil
}

func criterionIndex(t *testing.T, rep *Report, name string) int {
	t.Helper()
	for i, cr := range rep.Verdict.Criteria {
		if cr.Name == name {
			return i
		}
	}
	t.Fatalf("no criterion %s", name)
	return -1
}

func join(rss ...[]result) []result {
	var out []result
	for _, rs := range rss {
		out = append(out, rs...)
	}
	return out
}

// A candidate whose runs of a case failed comes last in that case, with
// the reason, however good its other runs were: fast boots in 0.5 s but
// one of its four boots failed. A case nobody measured ranks nobody
// first: fast's failed mount ranks it nowhere, and counts in no score.
// Skipped results and classified reliability iterations are no failures.
func TestVerdictFailedRunsRankLast(t *testing.T) {
	const noSpace = "filling bench: mkdir /mnt/bench/fsbench-fill: no space left on device"
	rs := join(boots("fast", 0.5, 0.55, 0.45), boots("a", 1.0, 1.1, 0.9), boots("b", 2.0, 2.1, 1.9),
		[]result{failedRun("fast", "boot_time", "rootfs", "single", "boot 4: no login prompt within 3m0s"),
			failedRun("fast", "mount_time", "bench", "single", noSpace),
			{variant: "a", recipe: "mount_time", test: "bench", cas: "single", status: "skipped", err: "not applicable: no fill tool"},
			{variant: "b", recipe: "power_loss", test: "cut", cas: "async-small_files", status: "failed", err: "mount failed",
				attrs: map[string]string{"consistency": "Fatal", "data": "LostSynced"}}},
		cuts("a", 3, 0), cuts("b", 2, 0))
	rep := resultsReport(t, Options{}, rs...)

	rk := ranking(t, rep, "boot time", "host_boot")
	want := "a > b (+100.0%, p<0.001); failed, so last: fast (1 of 4 runs failed: boot 4: no login prompt within 3m0s)"
	if got := rk.Line(); got != want {
		t.Errorf("boot ranking %q,\nwant %q", got, want)
	}
	boot, mount := criterionIndex(t, rep, "boot time"), criterionIndex(t, rep, "mount time")
	fast := placeOf(t, rep, "fast")
	if fast.Best[boot] != 3 || !fast.Failed[boot] {
		t.Errorf("fast on boot time: place %d, failed %v; want 3 (after a and b), failed", fast.Best[boot], fast.Failed[boot])
	}
	if fast.Best[mount] != 0 || !fast.Failed[mount] {
		t.Errorf("fast on mount time: place %d, failed %v; want unranked, failed", fast.Best[mount], fast.Failed[mount])
	}
	// Boot time alone scores: a 1, b 2, fast 3 (last); the power cuts
	// rank a ≈ b (b's failed cut is a LostSynced outcome, not a failure).
	if got := placeOf(t, rep, "b"); got.Failed[criterionIndex(t, rep, "power-loss robustness")] {
		t.Errorf("b's classified power cut counted as a failed run")
	}
	var order []string
	for _, p := range rep.Verdict.Places {
		order = append(order, fmt.Sprintf("%s %.2f", p.Variant, p.Score))
	}
	if got, want := strings.Join(order, ", "), "a 1.00, b 1.40, fast 3.00"; got != want {
		t.Errorf("overall %s, want %s", got, want)
	}
	md := rep.Markdown()
	for _, w := range []string{"| fast | failed | failed | - | 3.00 |", "**mount time**, mount\\_time bench/single: failed, so last: fast (1 of 1 runs failed: " + strings.ReplaceAll(noSpace, "_", "\\_") + ")"} {
		if !strings.Contains(md, w) {
			t.Errorf("the verdict lacks %q:\n%s", w, md[:min(len(md), 3000)])
		}
	}
	if placeOf(t, rep, "a").Failed[mount] {
		t.Errorf("a's skipped mount counted as a failure")
	}
}

// Without a spec the verdict weighs by the catalogue's defaults, says so,
// and separates candidates the data separate: a boots faster, b reads
// faster, and b lost synced data in 10 of 20 cuts (Fisher's exact test
// on 20/20 against 10/20 good: p < 0.001), though every cut left it
// Clean, so that it is 1st on one axis and 2nd on the other: 1.5. With
// the defaults (boot time ×2, power-loss robustness ×3, sequential
// bandwidth ×1): a (1·2 + 2·1 + 1·3) / 6 = 1.17, b (2·2 + 1·1 + 1.5·3) /
// 6 = 1.58.
func TestVerdictDefaultWeights(t *testing.T) {
	var reads []result
	for _, v := range []struct {
		name string
		kib  []float64
	}{{"a", []float64{50000, 50500, 49500}}, {"b", []float64{100000, 101000, 99000}}} {
		for _, x := range v.kib {
			reads = append(reads, result{variant: v.name, recipe: "fio", test: "seq", cas: "read-4MiB-direct", metric: "read_bw", unit: "KiB/s", value: x})
		}
	}
	rs := join(boots("a", 1.0, 1.1, 0.9), boots("b", 2.0, 2.1, 1.9), reads, cuts("a", 20, 0), cuts("b", 20, 10))
	rep := resultsReport(t, Options{}, rs...)
	a, b := placeOf(t, rep, "a"), placeOf(t, rep, "b")
	if fmt.Sprintf("%.2f %.2f", a.Score, b.Score) != "1.17 1.58" || rep.Verdict.Places[0] != a {
		t.Errorf("scores a %.4f, b %.4f (first %s), want 1.17 and 1.58, a first", a.Score, b.Score, rep.Verdict.Places[0].Variant)
	}
	intro := rep.Verdict.Intro()
	if !strings.Contains(intro, "weighted by the report's default weights") ||
		!strings.Contains(intro, "boot time ×2, power-loss robustness ×3, every other criterion ×1") {
		t.Errorf("the intro does not say the default weights: %s", intro)
	}
	robust := criterionIndex(t, rep, "power-loss robustness")
	if a.Figures[robust] != "0.0% (0/20)" || b.Figures[robust] != "50.0% (10/20)" {
		t.Errorf("robustness figures a %q, b %q", a.Figures[robust], b.Figures[robust])
	}
	md := rep.Markdown()
	if !strings.Contains(md, "| power-loss robustness (×3) |") || !strings.Contains(md, "| b | 1st | 2nd | 1st–2nd · 50.0% (10/20) | 1.58 |") {
		t.Errorf("the table lacks the robustness column:\n%s", md[:min(len(md), 3000)])
	}

	// A spec's weight replaces the default of the criterion it names.
	rep = resultsReport(t, Options{Weights: map[string]float64{"power-loss robustness": 0}}, rs...)
	a, b = placeOf(t, rep, "a"), placeOf(t, rep, "b")
	if fmt.Sprintf("%.2f %.2f", a.Score, b.Score) != "1.33 1.67" {
		t.Errorf("with robustness weighed 0: a %.4f, b %.4f, want (1·2 + 2·1) / 3 = 1.33 and (2·2 + 1·1) / 3 = 1.67", a.Score, b.Score)
	}
	if intro := rep.Verdict.Intro(); !strings.Contains(intro, "as the spec's verdict block says") || !strings.Contains(intro, "power-loss robustness ×0") {
		t.Errorf("the intro does not say the spec's weights: %s", intro)
	}
}

// The verdict of a QEMU context says what its figures mean and do not
// mean; a board's says nothing of the kind.
func TestVerdictEmulatedNote(t *testing.T) {
	qemu := map[string]string{"target": "qemu", "accel": "tcg", "disk": "virtio"}
	board := map[string]string{"target": "board", "board": "beaglebone-black"}
	var rs []result
	for _, c := range []struct {
		ctx      map[string]string
		variants []string
	}{{qemu, []string{"ext4", "f2fs"}}, {board, []string{"ext4", "f2fs"}}} {
		for i, v := range c.variants {
			for _, x := range []float64{1, 1.1, 0.9} {
				rs = append(rs, result{variant: v, recipe: "boot_time", test: "rootfs", cas: "single", metric: "host_boot", unit: "s",
					value: x + float64(i), attrs: c.ctx})
			}
		}
	}
	md := resultsReport(t, Options{}, rs...).Markdown()
	verdict, _, _ := strings.Cut(md, "## Contents")
	_, a, _ := strings.Cut(verdict, "### Context A")
	a, b, _ := strings.Cut(a, "### Context B")
	const note = "Emulated target: these figures come from an emulated CPU (QEMU's TCG) and a virtual disk (virtio) backed by the host's page cache, not from any flash."
	if !strings.Contains(a, note) {
		t.Errorf("the QEMU context's verdict lacks the note:\n%s", a)
	}
	if strings.Contains(b, "Emulated") || !strings.Contains(b, "| ext4 | 1st |") {
		t.Errorf("the board's verdict has the note, or no table:\n%s", b)
	}
	if strings.Count(md, "Emulated target") != 1 {
		t.Errorf("the note appears %d times, want once", strings.Count(md, "Emulated target"))
	}
}

// states are n crash_states states of a candidate in one case, lost of
// which lost data it had synced.
func states(variant, cas string, n, lost int) []result {
	var out []result
	for i := range n {
		data := "Intact"
		if i < lost {
			data = "LostSynced"
		}
		out = append(out, result{variant: variant, recipe: "crash_states", test: "fsync", cas: cas,
			metric: "data." + data, unit: "states", value: 1})
	}
	return out
}

// The cases of a device that ignores flushes answer their own criterion,
// and leave the honest device's to crash-state robustness; a requirement
// narrowed to that criterion is missed only there. ext4 keeps every
// synced write on both devices; nobarrier keeps them on the honest one
// and loses 12 of 20 on the lying one.
func TestVerdictIgnoredFlushCriterion(t *testing.T) {
	rs := join(states("ext4", "fsync-reorder", 20, 0), states("ext4", "fsync-reorder-ignored", 20, 0),
		states("nobarrier", "fsync-reorder", 20, 0), states("nobarrier", "fsync-reorder-ignored", 20, 12))
	lying := Requirement{Name: "keeps synced data on a lying card", Recipe: "crash_states", Axis: "data",
		Forbid: []string{"LostSynced", "Corrupt"}, Criterion: "survives a device that ignores flush"}
	honest := lying
	honest.Name, honest.Criterion = "keeps synced data", "crash-state robustness"
	rep := resultsReport(t, Options{Requirements: []Requirement{lying, honest}}, rs...)

	for _, rk := range rep.Verdict.Rankings {
		ignored := strings.HasSuffix(rk.Case, "-ignored")
		if ignored != (rk.Criterion == "survives a device that ignores flush") {
			t.Errorf("case %s ranked under %q", rk.Case, rk.Criterion)
		}
	}
	survives, robust := criterionIndex(t, rep, "survives a device that ignores flush"), criterionIndex(t, rep, "crash-state robustness")
	nb, e4 := placeOf(t, rep, "nobarrier"), placeOf(t, rep, "ext4")
	if e4.Best[survives] != 1 || nb.Best[survives] != 2 {
		t.Errorf("on a lying device: ext4 %d, nobarrier %d; want 1 and 2", e4.Best[survives], nb.Best[survives])
	}
	if e4.Best[robust] != 1 || nb.Best[robust] != 1 {
		t.Errorf("on an honest device: ext4 %d, nobarrier %d; want both 1", e4.Best[robust], nb.Best[robust])
	}
	if len(e4.Failures) != 0 {
		t.Errorf("ext4 misses %v", e4.Failures)
	}
	want := "keeps synced data on a lying card: 12× LostSynced in fsync/fsync-reorder-ignored"
	if len(nb.Failures) != 1 || nb.Failures[0] != want {
		t.Errorf("nobarrier misses %q, want only %q", nb.Failures, want)
	}
}
