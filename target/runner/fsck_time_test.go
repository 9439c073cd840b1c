package runner

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestFsckTimeMeasuresACleanCheck(t *testing.T) {
	for _, fs := range []string{"ext4", "xfs", "btrfs"} {
		t.Run(fs, func(t *testing.T) {
			t.Parallel()
			part := loopPart(t, fs, 320<<20)
			typ, _ := filesystems.Lookup(fs)
			part.Check = append(slices.Clone(typ.Checker), "{device}")
			fill := "0"
			if fs == "ext4" {
				fill = "10"
			}
			p := planFor([]runplan.Partition{*part}, runplan.Step{
				Recipe: "fsck_time", Test: "f", Case: "single", On: "bench",
				Params: runplan.Params{"iterations": json.Number("2"), "force": true, "read_only": true,
					"fill_percent": json.Number(fill), "fill": "small_files", "timeout": "2m"},
			})
			console, st, err := runOnce(t, p, t.TempDir())
			if err != nil || st != Complete {
				t.Fatalf("run: %v, %v\n%s", st, err, console)
			}
			res := decodeFrames(t, console)
			if len(res) != 3 {
				t.Fatalf("got %d results, want 2 iterations and the plan's end:\n%s", len(res), console)
			}
			for i, r := range res[:2] {
				if r.Status != resultframe.StatusOK || r.Iteration != i+1 {
					t.Fatalf("result %d: %+v", i, r)
				}
				if r.Attrs["verdict"] != "clean" || metric(r, "exit_code") != 0 {
					t.Errorf("iteration %d: verdict %q, exit code %v", i+1, r.Attrs["verdict"], metric(r, "exit_code"))
				}
				real, usr, sys := metric(r, "fsck_time"), metric(r, "fsck_user"), metric(r, "fsck_sys")
				if real <= 0 || real > 60 || usr < 0 || sys < 0 || usr+sys > real*2.5 {
					t.Errorf("iteration %d: real %v user %v sys %v", i+1, real, usr, sys)
				}
				if !strings.Contains(r.Attrs["checker"], part.Device) {
					t.Errorf("checker %q does not name %s", r.Attrs["checker"], part.Device)
				}
			}
			if fs == "ext4" && metric(res[0], "fill_bytes") == 0 {
				t.Errorf("the first iteration did not fill")
			}
			if at, _ := linux.MountedAt(part.Device); len(at) != 0 {
				t.Errorf("still mounted at %v", at)
			}
			dir, err := (&step.Env{}).MountPart(part)
			if err != nil {
				t.Fatal(err)
			}
			defer linux.Unmount(dir)
			// No later step works on the partition: the fill stays,
			// and the runner says so.
			_, err = os.Stat(dir + "/" + workload.FillDir)
			left := strings.Contains(string(console), "leaving the fill data of bench")
			if fs == "ext4" && (err != nil || !left) {
				t.Errorf("the fill should stay after the last step using the partition: %v, said so: %v", err, left)
			}
		})
	}
}

// The plan says why nilfs2 has no checker (the catalogue's NoChecker),
// and the runner says it.
func TestFsckTimeOnNilfs2SaysWhy(t *testing.T) {
	typ, _ := filesystems.Lookup("nilfs2")
	p := planFor([]runplan.Partition{{Name: "bench", Device: "/dev/null", FS: "nilfs2", NoCheck: typ.NoChecker}}, runplan.Step{
		Recipe: "fsck_time", Test: "f", Case: "single", On: "bench",
		Params: runplan.Params{"iterations": json.Number("1"), "force": true, "read_only": true,
			"fill_percent": json.Number("0"), "fill": "rootfs"},
	})
	console, _, err := runOnce(t, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res := decodeFrames(t, console)
	if len(res) != 2 || res[0].Status != resultframe.StatusFailed || !strings.Contains(res[0].Error, "nilfs2 has no offline checker") {
		t.Fatalf("results %+v", res)
	}
}

func TestFsckTimeWithoutTheCheckerSkips(t *testing.T) {
	p := planFor([]runplan.Partition{{Name: "bench", Device: "/dev/null", FS: "ext4",
		Check: []string{"/nonexistent/fsck.custom", "{device}"}}}, runplan.Step{
		Recipe: "fsck_time", Test: "f", Case: "single", On: "bench",
		Params: runplan.Params{"iterations": json.Number("1"), "force": true, "read_only": true,
			"fill_percent": json.Number("0"), "fill": "rootfs"},
	})
	console, _, err := runOnce(t, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res := decodeFrames(t, console)
	if len(res) != 2 || res[0].Status != resultframe.StatusSkipped || !strings.Contains(res[0].Error, "/nonexistent/fsck.custom") {
		t.Fatalf("results %+v", res)
	}
}
