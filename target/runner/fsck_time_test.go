package runner

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestCheckerArgv(t *testing.T) {
	for _, c := range []struct {
		fs              string
		check           []string
		force, readOnly bool
		want            string
	}{
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, true, true, "e2fsck -fn /dev/x"},
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, false, true, "e2fsck -n /dev/x"},
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, true, false, "e2fsck -fp /dev/x"},
		{"ext2", []string{"/sbin/fsck.ext2", "-v", "-y", "-E", "journal_only", "{device}"}, true, true, "/sbin/fsck.ext2 -fn -v -E journal_only /dev/x"},
		{"ext4", nil, true, true, "e2fsck -fn /dev/x"},
		{"f2fs", []string{"fsck.f2fs", "--dry-run", "{device}"}, true, true, "fsck.f2fs -f --dry-run /dev/x"},
		{"f2fs", []string{"fsck.f2fs", "--dry-run", "{device}"}, false, false, "fsck.f2fs -a /dev/x"},
		{"btrfs", []string{"btrfs", "check", "--readonly", "{device}"}, true, true, "btrfs check --readonly /dev/x"},
		{"btrfs", []string{"btrfs", "check", "--readonly", "{device}"}, true, false, "btrfs check --repair --force /dev/x"},
		{"xfs", []string{"xfs_repair", "-n", "{device}"}, true, true, "xfs_repair -n /dev/x"},
		{"xfs", []string{"xfs_repair", "-n", "{device}"}, true, false, "xfs_repair /dev/x"},
		{"vfat", []string{"fsck.vfat", "-n", "{device}"}, true, false, "fsck.vfat -a /dev/x"},
		{"erofs", []string{"fsck.erofs", "--extract", "{device}"}, true, true, "fsck.erofs --extract /dev/x"},
		{"xfs", []string{"xfs_repair", "-n"}, true, true, "xfs_repair -n /dev/x"},
	} {
		argv, err := checkerArgv(&runplan.Partition{Name: "p", FS: c.fs, Device: "/dev/x", Check: c.check}, c.force, c.readOnly)
		if err != nil || strings.Join(argv, " ") != c.want {
			t.Errorf("%s %q force=%v read_only=%v: %q, %v; want %q", c.fs, c.check, c.force, c.readOnly, argv, err, c.want)
		}
	}
	for fs, msg := range map[string]string{"nilfs2": "nilfs2 has no offline checker", "squashfs2": "knows none for squashfs2"} {
		if _, err := checkerArgv(&runplan.Partition{Name: "p", FS: fs, Device: "/dev/x"}, true, true); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", fs, err, msg)
		}
	}
}

func TestCheckerVerdict(t *testing.T) {
	e2 := []string{"e2fsck", "-fn", "/dev/x"}
	for code, want := range map[int]string{0: "clean", 1: "errors corrected", 2: "errors corrected", 3: "errors corrected"} {
		if got, err := checkerVerdict(e2, code); got != want || err != nil {
			t.Errorf("e2fsck exit %d: %q, %v", code, got, err)
		}
	}
	for code, msg := range map[int]string{4: "errors left uncorrected", 8: "operational error", 12: "errors left uncorrected, operational error", 32: "cancelled"} {
		if _, err := checkerVerdict(e2, code); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("e2fsck exit %d: %v, want %q", code, err, msg)
		}
	}
	if _, err := checkerVerdict([]string{"xfs_repair", "-n", "/dev/x"}, 1); err == nil {
		t.Errorf("xfs_repair -n exit 1 (corruption found) taken for clean")
	}
}

func TestFsckTimeMeasuresACleanCheck(t *testing.T) {
	for _, fs := range []string{"ext4", "xfs", "btrfs"} {
		t.Run(fs, func(t *testing.T) {
			t.Parallel()
			part := loopPart(t, fs, 320<<20)
			part.Check = runplan.DefaultChecker(fs)
			part.Check = append(append([]string(nil), part.Check...), "{device}")
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

func TestFsckTimeOnNilfs2SaysWhy(t *testing.T) {
	p := planFor([]runplan.Partition{{Name: "bench", Device: "/dev/null", FS: "nilfs2"}}, runplan.Step{
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
