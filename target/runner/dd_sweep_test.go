package runner

import (
	"encoding/json"
	"testing"

	"github.com/fsbench/fsbench/wire/runplan"
)

func TestDDSweepWritesAndReadsBack(t *testing.T) {
	for _, fs := range testFilesystems {
		t.Run(fs, func(t *testing.T) {
			t.Parallel()
			part := loopPart(t, fs, 320<<20)
			step := func(kase, bs, source string, fsync, read bool) runplan.Step {
				return runplan.Step{Recipe: "dd_sweep", Test: "dd", Case: kase, On: "bench",
					Params: runplan.Params{"total": json.Number("4194304"), "bs": json.Number(bs), "passes": json.Number("2"),
						"drop_caches": true, "read": read, "source": source, "fsync": fsync, "timeout": "1m"}}
			}
			res := runSteps(t, part,
				step("bs=1MiB", "1048576", "/dev/zero", false, true),
				step("bs=4KiB", "4096", "/dev/urandom", true, false))
			if len(res) != 4 {
				t.Fatalf("got %d results, want 2 passes of 2 cases", len(res))
			}
			okResults(t, res[:2], 2)
			okResults(t, res[2:], 2)
			for _, r := range res {
				if metric(r, "write_bytes") != 4<<20 || metric(r, "write_rate") <= 0 || metric(r, "write_time") <= 0 {
					t.Errorf("%s pass %d: %+v", r.Case, r.Iteration, r.Metrics)
				}
				rate := float64(4<<20) / metric(r, "write_time") / 1e6
				if d := metric(r, "write_rate") - rate; d > 1e-6*rate || d < -1e-6*rate {
					t.Errorf("%s: write_rate %v MB/s is not bytes/time/1e6 = %v", r.Case, metric(r, "write_rate"), rate)
				}
			}
			if r := res[0]; metric(r, "read_bytes") != 4<<20 || metric(r, "read_rate") <= 0 || r.Attrs["read_records_in"] != "4+0" {
				t.Errorf("read back: %+v %v", r.Metrics, r.Attrs)
			}
			if r := res[2]; r.Attrs["write_records_out"] != "1024+0" || metric(r, "read_bytes") != 0 {
				t.Errorf("bs=4KiB: %v, %v", r.Attrs, r.Metrics)
			}
			workDirGone(t, part)
		})
	}
}
