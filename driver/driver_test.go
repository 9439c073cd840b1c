package driver

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/report"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// TestQuickstartInQEMU is the whole loop: the quickstart spec, reduced
// through its variables, is built for every root filesystem, booted in
// QEMU and followed until its plan completes, and every result arrives.
func TestQuickstartInQEMU(t *testing.T) {
	for _, tool := range []string{"qemu-system-x86_64", "apt-get", "fakeroot", "mkfs.nilfs2"} {
		testenv.Tool(t, tool)
	}
	if testing.Short() {
		t.Skip("boots five VMs")
	}
	t.Parallel()
	s, p := loadSpec(t, "../examples/quickstart.fsb.hcl", "settle_min=2", "settle_max=2", "crash_operations=4")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	start := time.Now()
	outcomes := runJob(t, ctx, testJob(t, s, p, t.TempDir()))
	t.Logf("%d variants built and ran in %s", len(p.Variants), time.Since(start).Round(time.Second))
	var files []string
	for _, v := range p.Variants {
		t.Run(v.Name, func(t *testing.T) {
			o := outcomes[v.Name]
			if o == nil {
				t.Skip("did not complete (above)")
			}
			files = append(files, o.Results)
			checkQuickstart(t, o)
			checkCharts(t, v.Tests, o.Results)
		})
	}
	t.Run("report", func(t *testing.T) { checkQuickstartReport(t, files, len(p.Variants)) })
}

// checkQuickstartReport builds the report of the quickstart's results: it
// opens with a verdict, and no comparison is left untested, since every
// test settles from two runs on.
func checkQuickstartReport(t *testing.T, files []string, variants int) {
	if len(files) != variants {
		t.Skipf("%d of %d variants completed", len(files), variants)
	}
	ins, err := report.Load(files)
	if err != nil {
		t.Fatal(err)
	}
	md := report.Build(ins, report.Options{}).Markdown()
	if !strings.Contains(md, "## Verdict") || !strings.Contains(md, "**boot time**") {
		t.Errorf("the report has no verdict on boot time:\n%.2000s", md)
	}
	if strings.Contains(md, "untested") || strings.Contains(md, "nothing ranked") {
		t.Errorf("the report leaves comparisons untested:\n%s", md)
	}
	// Longevity: the write amplification and bytes-a-day charts, and a
	// lifetime for each candidate, with its assumptions; robustness: the
	// share of crash states with synced data lost.
	for _, want := range []string{"Write amplification per filesystem and workload", "to flash a day", "years", "Assumptions",
		"crash-state robustness"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report has no %q", want)
		}
	}
}

// checkQuickstartWrites: the cases that write report their write
// amplification, and QEMU's count of the disk's bytes is the guest's,
// within 1%.
func checkQuickstartWrites(t *testing.T, r resultframe.Result) {
	t.Helper()
	writes := (r.Recipe == "fio" && strings.Contains(r.Case, "write")) || r.Recipe == "endurance"
	if !writes {
		return
	}
	id := fmt.Sprintf("%s %s/%s #%d", r.Recipe, r.Name, r.Case, r.Iteration)
	if wa := value(r, "write_amplification"); wa < 0.9 {
		t.Errorf("%s: write amplification %v (%s)", id, wa, r.Attrs["write_amplification"])
	}
	if d := value(r, "host_guest_difference"); value(r, "host_write_bytes") <= 0 || math.Abs(d) > 1 {
		t.Errorf("%s: QEMU counted %v bytes, the guest %v: %v%% apart (%s)", id, value(r, "host_write_bytes"), value(r, "disk_write_bytes"), d, r.Attrs["host_counters"])
	}
	if r.Recipe == "endurance" && (value(r, "device_bytes_per_day") <= 0 || r.Attrs["block_trace_lost"] != "0") {
		t.Errorf("%s: %v bytes to flash a day, trace lost %q", id, value(r, "device_bytes_per_day"), r.Attrs["block_trace_lost"])
	}
}

// checkQuickstartCrashStates: the campaign checked every state of its
// log, and none lost what the workload had synced.
func checkQuickstartCrashStates(t *testing.T, r resultframe.Result) {
	t.Helper()
	if r.Recipe != "crash_states" {
		return
	}
	if n := value(r, "states"); n < 5 || value(r, "states_checked") != n {
		t.Errorf("crash_states %s: %v states, %v checked", r.Case, n, value(r, "states_checked"))
	}
	if lost := value(r, "data.LostSynced") + value(r, "data.Corrupt"); lost > 0 {
		t.Errorf("crash_states %s: %v states lost synced data", r.Case, lost)
	}
}

func tail(o *Outcome) string {
	if o == nil {
		return "none"
	}
	b, _ := os.ReadFile(o.Console)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// checkQuickstart checks the results of one reduced quickstart variant.
func checkQuickstart(t *testing.T, o *Outcome) {
	t.Helper()
	count := map[string]int{}
	for _, r := range o.Summary.Results {
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s %s/%s #%d: %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
			continue
		}
		count[r.Recipe]++
		// Boots and fio cases settle from two to two runs: the first goes
		// on, the second ends the case, settled or not. Endurance runs
		// twice, crash_states once.
		if r.Recipe == "boot_time" || r.Recipe == "fio" {
			want := []string{"continue"}
			if r.Iteration == 2 {
				want = []string{"settled", "max"}
			}
			if !slices.Contains(want, r.Attrs["settle"]) {
				t.Errorf("%s %s/%s #%d: settle %q, want one of %q", r.Recipe, r.Name, r.Case, r.Iteration, r.Attrs["settle"], want)
			}
		}
		if r.Attrs["target"] != "qemu" || r.Attrs["kernel_package"] == "" {
			t.Errorf("%s: attrs %v lack the target", r.Recipe, r.Attrs)
		}
		checkQuickstartWrites(t, r)
		checkQuickstartCrashStates(t, r)
		if r.Recipe != "boot_time" {
			continue
		}
		host, ready, target := value(r, "host_boot"), value(r, "host_ready"), value(r, "target_boot")
		if host <= 0 || ready <= 0 || target <= 0 {
			t.Errorf("boot %d: host %v s (ready %v s), target %v s", r.Iteration, host, ready, target)
			continue
		}
		// The target times the root mount to its ready line on the
		// kernel's clock; the host times the same two console lines by
		// their arrival. They agree within 0.2 s and 10%: what is left is
		// the serial line's delay of one line against the other. The
		// host's boot time runs on to the login prompt, which the getty
		// prints after the ready line.
		if d := math.Abs(ready - target); d > 0.2+0.1*target {
			t.Errorf("boot %d: host %.3f s and target %.3f s disagree on root mount to ready", r.Iteration, ready, target)
		}
		if host < ready {
			t.Errorf("boot %d: prompt (%.3f s) before the ready line (%.3f s)", r.Iteration, host, ready)
		}
		t.Logf("boot %d: host %.3f s to the prompt, %.3f s to the ready line; target %.3f s", r.Iteration, host, ready, target)
	}
	want := map[string]int{"boot_time": 2, "fio": 4, "endurance": 2, "crash_states": 1, "fsbench": 1}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d %s results, want %d", count[k], k, n)
		}
	}
	stored, err := os.ReadFile(o.Results)
	if err != nil || len(stored) == 0 {
		t.Errorf("results file: %v", err)
	}
}

func value(r resultframe.Result, name string) float64 {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return 0
}
