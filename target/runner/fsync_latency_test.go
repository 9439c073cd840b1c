package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestFsyncLatencyCountsEveryCall(t *testing.T) {
	for _, fs := range testFilesystems {
		t.Run(fs, func(t *testing.T) {
			t.Parallel()
			part := loopPart(t, fs, 320<<20)
			step := func(call, pattern string) runplan.Step {
				return runplan.Step{Recipe: "fsync_latency", Test: "sync", Case: call + "-" + pattern, On: "bench",
					Params: runplan.Params{"write_size": json.Number("4096"), "count": json.Number("60"), "call": call,
						"pattern": pattern, "percentiles": []any{json.Number("50"), json.Number("90"), json.Number("99"), json.Number("99.9")},
						"timeout": "1m"}}
			}
			res := runSteps(t, part, step("fsync", "append"), step("fdatasync", "overwrite"))
			if len(res) != 2 {
				t.Fatalf("got %d results", len(res))
			}
			for _, r := range res {
				if r.Status != resultframe.StatusOK {
					t.Fatalf("%s: %s", r.Case, r.Error)
				}
				if metric(r, "calls") != 60 {
					t.Errorf("%s: %v calls, want 60", r.Case, metric(r, "calls"))
				}
				prev := metric(r, "min")
				for _, name := range []string{"p50", "p90", "p99", "p99.9", "max"} {
					v := metric(r, name)
					if v < prev*(1-1.0/256) {
						t.Errorf("%s: %s %vus below the previous %vus", r.Case, name, v, prev)
					}
					prev = v
				}
				if m := metric(r, "mean"); m < metric(r, "min") || m > metric(r, "max") || metric(r, "min") <= 0 {
					t.Errorf("%s: mean %v outside [%v, %v]", r.Case, m, metric(r, "min"), metric(r, "max"))
				}
				if cps := metric(r, "calls_per_s"); cps <= 0 || cps > 1e6/metric(r, "mean")*1.01 {
					t.Errorf("%s: %v calls/s, mean %vus", r.Case, cps, metric(r, "mean"))
				}
				for _, m := range r.Metrics {
					if strings.HasPrefix(m.Name, "p") && m.Unit != "us" {
						t.Errorf("%s: %s in %q", r.Case, m.Name, m.Unit)
					}
				}
			}
			workDirGone(t, part)
		})
	}
}
