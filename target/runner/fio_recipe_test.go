package runner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
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
	if at, _ := linux.MountedAt(part.Device); len(at) != 0 {
		t.Errorf("left mounted at %v", at)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A read job lays its files out once for all its iterations (the device
// sees one file's worth of writes, not three), and the step's end removes
// them.
func TestFioReadLayoutKeptAcrossIterations(t *testing.T) {
	part := loopPart(t, "ext4", 128<<20)
	params := runplan.Params{"rw": "read", "bs": json.Number("1048576"), "direct": true, "size": json.Number(itoa(8 << 20)),
		"nrfiles": json.Number("1"), "numjobs": json.Number("1"), "ioengine": "libaio", "iodepth": json.Number("1"),
		"rwmixread": json.Number("50"), "time_based": false, "fsync": json.Number("0"), "end_fsync": false,
		"kthread_cpu": false, "timeout": "2m", "iterations": json.Number("3")}
	p := planFor([]runplan.Partition{*part}, runplan.Step{Recipe: "fio", Test: "bw", Case: "read-1MiB-direct", On: "bench", Params: params})
	written := func() int64 {
		b, err := os.ReadFile("/sys/block/" + filepath.Base(part.Device) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.ParseInt(strings.Fields(string(b))[6], 10, 64)
		return n * 512
	}
	before := written()
	console, st, err := runOnce(t, p, t.TempDir())
	if err != nil || st != Complete {
		t.Fatalf("run: %v %v\n%s", st, err, console)
	}
	res := decodeFrames(t, console)
	if len(res) != 4 {
		t.Fatalf("%d results, want 3 and the plan's end", len(res))
	}
	for _, r := range res[:3] {
		if r.Status != resultframe.StatusOK || metric(r, "read_bytes") != 8<<20 {
			t.Errorf("iteration %d: %s %s, read %v", r.Iteration, r.Status, r.Error, metric(r, "read_bytes"))
		}
	}
	if w := written() - before; w > 14<<20 {
		t.Errorf("the device saw %d MiB written for three runs of an 8MiB read job: the files were laid out again", w>>20)
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", part.Device, mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	if left, _ := filepath.Glob(filepath.Join(mnt, "fsbench-*")); len(left) > 0 {
		t.Errorf("the step left %q", left)
	}
}
