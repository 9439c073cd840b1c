package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// runSteps runs steps on part and returns their results, the plan's end
// left out, after checking that the run completed.
func runSteps(t *testing.T, part *runplan.Partition, steps ...runplan.Step) []resultframe.Result {
	t.Helper()
	var parts []runplan.Partition
	if part != nil {
		parts = append(parts, *part)
	}
	console, st, err := runOnce(t, planFor(parts, steps...), t.TempDir())
	if err != nil || st != Complete {
		t.Fatalf("run: %v, %v\n%s", st, err, console)
	}
	res := decodeFrames(t, console)
	if len(res) == 0 || res[len(res)-1].Name != "plan" {
		t.Fatalf("the run did not end with the plan's result:\n%s", console)
	}
	return res[:len(res)-1]
}

// okResults checks that res are n successful iterations of one step.
func okResults(t *testing.T, res []resultframe.Result, n int) {
	t.Helper()
	if len(res) != n {
		t.Fatalf("got %d results, want %d: %+v", len(res), n, res)
	}
	for i, r := range res {
		if r.Status != resultframe.StatusOK || r.Iteration != i+1 {
			t.Fatalf("result %d: status %s, iteration %d, error %q", i, r.Status, r.Iteration, r.Error)
		}
	}
}

// workDirGone checks that the recipes left nothing in the filesystem
// (lost+found aside).
func workDirGone(t *testing.T, part *runplan.Partition) {
	t.Helper()
	if at, _ := linux.MountedAt(part.Device); len(at) != 0 {
		t.Errorf("still mounted at %v", at)
	}
	dir, err := (&step.Env{}).MountPart(part)
	if err != nil {
		t.Fatal(err)
	}
	defer linux.Unmount(dir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "lost+found" {
			t.Errorf("left %s behind", filepath.Join(dir, e.Name()))
		}
	}
}

// testFilesystems are the filesystems the recipes run on in tests. The
// tests of recipes that only read and write files run them in parallel;
// mkfs_stats, which counts the kernel's threads, runs alone.
var testFilesystems = []string{"ext4", "xfs", "btrfs"}

// A recipe given a device that does not exist fails its step with an
// error that names the device, and the run goes on.
func TestRecipesOnAMissingDeviceFail(t *testing.T) {
	part := &runplan.Partition{Name: "bench", Device: "/dev/fsbench-missing", FS: "ext4",
		Mountpoint: filepath.Join(t.TempDir(), "mnt"), Check: []string{"e2fsck", "-fn", "{device}"}}
	n := func(s string) json.Number { return json.Number(s) }
	steps := []runplan.Step{
		{Recipe: "dd_sweep", Params: runplan.Params{"total": n("8192"), "bs": n("4096"), "passes": n("1"),
			"drop_caches": false, "read": false, "source": "/dev/zero", "fsync": false}},
		{Recipe: "fsync_latency", Params: runplan.Params{"write_size": n("4096"), "count": n("1"), "call": "fsync",
			"pattern": "append", "percentiles": []any{n("50")}}},
		{Recipe: "small_files", Params: runplan.Params{"mode": "postmark", "files": n("1"), "transactions": n("1"),
			"min_size": n("1"), "max_size": n("2"), "read_block": n("1"), "write_block": n("1"), "subdirectories": n("0"),
			"read_bias": n("5"), "create_bias": n("5"), "buffered": true, "random_seed": n("1")}},
		{Recipe: "mkfs_stats", Params: runplan.Params{"iterations": n("1"), "settle": "0s"}},
		{Recipe: "fsck_time", Params: runplan.Params{"iterations": n("1"), "force": true, "read_only": true,
			"fill_percent": n("0"), "fill": "rootfs"}},
	}
	for i := range steps {
		steps[i].Test, steps[i].Case, steps[i].On = "t", fmt.Sprint(i), "bench"
	}
	res := runSteps(t, part, steps...)
	if len(res) != len(steps) {
		t.Fatalf("got %d results for %d steps", len(res), len(steps))
	}
	for i, r := range res {
		if r.Recipe != steps[i].Recipe || r.Status != resultframe.StatusFailed || !strings.Contains(r.Error, "/dev/fsbench-missing") {
			t.Errorf("%s: status %s, error %q", r.Recipe, r.Status, r.Error)
		}
	}
}
