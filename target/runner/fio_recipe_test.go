package runner

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestFioRecipeOnRealFilesystem(t *testing.T) {
	part := loopPart(t, "ext4", 128<<20)
	params := func(rw string, bs int64) runplan.Params {
		return runplan.Params{"rw": rw, "bs": json.Number(itoa(bs)), "direct": true, "size": json.Number(itoa(8 << 20)),
			"nrfiles": json.Number("2"), "numjobs": json.Number("1"), "ioengine": "libaio", "iodepth": json.Number("1"),
			"rwmixread": json.Number("50"), "time_based": false, "fsync": json.Number("0"), "end_fsync": false,
			"kthread_cpu": false, "timeout": "2m"}
	}
	p := planFor([]runplan.Partition{*part},
		runplan.Step{Recipe: "fio", Test: "bw", Case: "randread-4KiB-direct", On: "bench", Params: params("randread", 4096)},
		runplan.Step{Recipe: "fio", Test: "bw", Case: "write-1MiB-direct", On: "bench", Params: params("write", 1<<20)},
	)
	console, st, err := runOnce(t, p, t.TempDir())
	if err != nil || st != Complete {
		t.Fatalf("run: %v %v\n%s", st, err, console)
	}
	res := decodeFrames(t, console)
	if len(res) != 3 {
		t.Fatalf("%d results:\n%s", len(res), console)
	}
	for i, dir := range []string{"read", "write"} {
		r := res[i]
		if r.Status != resultframe.StatusOK {
			t.Fatalf("%s: %s %s", r.Case, r.Status, r.Error)
		}
		if got := metric(r, dir+"_bytes"); got != 8<<20 {
			t.Errorf("%s: %s_bytes %v, want 8MiB", r.Case, dir, got)
		}
		if metric(r, dir+"_bw") <= 0 || r.Attrs["engine"] == "" {
			t.Errorf("%s: bw %v, engine %q", r.Case, metric(r, dir+"_bw"), r.Attrs["engine"])
		}
	}
	if at, _ := mountedAt(part.Device); len(at) != 0 {
		t.Errorf("left mounted at %v", at)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
