package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestMountTimeFillsMeasuresAndCleansUp(t *testing.T) {
	for _, fs := range []string{"ext4", "xfs", "btrfs"} {
		t.Run(fs, func(t *testing.T) {
			part := loopPart(t, fs, 320<<20)
			// A second step on the partition: the first one's fill
			// must be gone before it starts.
			p := planFor([]runplan.Partition{*part}, runplan.Step{
				Recipe: "mount_time", Test: "m", Case: "single", On: "bench",
				Params: runplan.Params{"fill_percent": json.Number("30"), "fill": "small_files",
					"iterations": json.Number("3"), "specify_type": true, "drop_caches": true, "timeout": "2m"},
			}, runplan.Step{
				Recipe: "mount_time", Test: "empty", Case: "single", On: "bench",
				Params: runplan.Params{"fill_percent": json.Number("0"), "fill": "small_files",
					"iterations": json.Number("1"), "specify_type": true, "drop_caches": true, "timeout": "2m"},
			})
			console, st, err := runOnce(t, p, t.TempDir())
			if err != nil || st != Complete {
				t.Fatalf("run: %v, %v\n%s", st, err, console)
			}
			res := decodeFrames(t, console)
			if len(res) != 5 {
				t.Fatalf("got %d results, want 3 + 1 iterations and the plan's end:\n%s", len(res), console)
			}
			for i, r := range res[:3] {
				if r.Status != resultframe.StatusOK || r.Iteration != i+1 || r.Seq != uint64(i+1) {
					t.Fatalf("result %d: %+v", i, r)
				}
				mt := metric(r, "mount_time")
				if mt <= 0 || mt > 30 {
					t.Errorf("iteration %d: mount_time %v s", i+1, mt)
				}
				if r.Attrs["fstype"] != fs {
					t.Errorf("mounted as %q", r.Attrs["fstype"])
				}
			}
			if used := metric(res[0], "fill_used"); used < 30 || used > 45 {
				t.Errorf("filled to %.1f%%, want 30%% or a little more", used)
			}
			if metric(res[1], "fill_bytes") != 0 {
				t.Errorf("the second iteration filled again")
			}
			if at, _ := linux.MountedAt(part.Device); len(at) != 0 {
				t.Errorf("still mounted at %v", at)
			}
			dir, err := (&step.Env{}).MountPart(part)
			if err != nil {
				t.Fatal(err)
			}
			defer linux.Unmount(dir)
			if u, _ := workload.UsedPercent(dir); u > 10 {
				t.Errorf("fill not removed: %.1f%% used", u)
			}
		})
	}
}

// TestMountTimeOnAFullerPartition: a partition already fuller than
// fill_percent (what other steps left there) gets no fill, and the runner
// says so.
func TestMountTimeOnAFullerPartition(t *testing.T) {
	part := loopPart(t, "ext4", 256<<20)
	dir, err := (&step.Env{}).MountPart(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "left-behind"), bytes.Repeat([]byte{0x5a}, 160<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := linux.Unmount(dir); err != nil {
		t.Fatal(err)
	}
	p := planFor([]runplan.Partition{*part}, runplan.Step{
		Recipe: "mount_time", Test: "m", Case: "single", On: "bench",
		Params: runplan.Params{"fill_percent": json.Number("30"), "fill": "rootfs",
			"iterations": json.Number("1"), "specify_type": true, "drop_caches": true, "timeout": "2m"},
	})
	console, st, err := runOnce(t, p, t.TempDir())
	if err != nil || st != Complete {
		t.Fatalf("run: %v, %v\n%s", st, err, console)
	}
	res := decodeFrames(t, console)
	if len(res) != 2 || res[0].Status != resultframe.StatusOK {
		t.Fatalf("results %+v\n%s", res, console)
	}
	if n, used := metric(res[0], "fill_bytes"), metric(res[0], "fill_used"); n != 0 || used < 60 {
		t.Errorf("fill_bytes %v, fill_used %.1f%%: want nothing written to a partition over 60%% full", n, used)
	}
	if !bytes.Contains(console, []byte("above the 30% asked for: nothing written")) {
		t.Errorf("the runner did not say that it wrote nothing:\n%s", console)
	}
}

// metric returns the named metric of r, 0 when absent.
func metric(r resultframe.Result, name string) float64 {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return 0
}
