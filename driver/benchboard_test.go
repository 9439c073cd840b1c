package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/driver/benchboard"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The tests' own binary is the bench board's power switch (and, for the
// failure tests, a flash and a power command of their own).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case benchboard.Command:
			os.Exit(benchboard.Main(os.Args[2:], os.Stdout, os.Stderr))
		case flashOrFail:
			os.Exit(flashOrFailMain(os.Args[2:]))
		case cycleOrNot:
			os.Exit(cycleOrNotMain(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// benchBoardSpec is an arm64 board that boots through U-Boot from a FAT
// boot partition, as the bench board boots its disk; %[1]s is the
// matrix's values, %[2]s the filesystem of the last partition, %[3]s the
// tests.
const benchBoardSpec = `
matrix "v" { values = [%[1]s] }

board "bench-board" {
  arch       = "arm64"
  console    = "ttyAMA0,115200n8"
  storage    = "vda"
  bootloader = "extlinux"
  boot { partition = partition.boot }
}

image "disk" {
  table = "gpt"
  size  = "320MiB"
  partition "boot" {
    size = "48MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "96MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }
  partition "crash" {
    grow = true
    filesystem {
      type       = %[2]s
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }
}
%[3]s
`

// The whole plan on the bench: timed reboots, a watchdog reset and a cut
// of the power by the host, each as short as it can be.
const benchBoardTests = `
test "boot_time" "rootfs" { iterations = 2 }

test "power_loss" "watchdog" {
  on              = partition.crash
  iterations      = 1
  mount           = ["async"]
  cut_after       = "3s"
  small_file_size = "64KiB"
}

test "power_loss" "host" {
  on         = partition.crash
  iterations = 1
  trigger    = "host_kill"
  writer     = ["fsync"]
  mount      = ["async"]
  cut_after  = "2s"
}
`

func needBenchBoard(t *testing.T) {
	t.Helper()
	needUBoot(t, arch.ARM64)
	testenv.Tool(t, "bmaptool")
	if testing.Short() {
		t.Skip("boots a board made of QEMU through U-Boot")
	}
}

// startBenchBoard sets up a bench board, switched off, and the board
// fsbench drives: its console, bmaptool onto its disk, and its power
// switch.
func startBenchBoard(t *testing.T, ctx context.Context) (*benchboard.Board, *Board) {
	t.Helper()
	dir := t.TempDir()
	bb, err := benchboard.Start(ctx, benchboard.Config{Dir: dir, Accel: "tcg", Log: testLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bb.Close() })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	power := func(c string) []string { return []string{self, benchboard.Command, "power", c, "-dir", dir} }
	return bb, &Board{Port: bb.Console(), Baud: 115200, Flash: []string{"bmaptool", "copy", "--bmap", "{bmap}", "{image}", bb.Disk()},
		PowerOff: power("off"), PowerCycle: power("cycle")}
}

// TestBenchBoard runs a spec's two variants on a board made of QEMU as
// `fsbench run -target board` runs them on the bench: each image flashed
// with bmaptool onto the board's disk while the board is off, the board
// switched on by a command and followed on a pty through U-Boot, timed
// reboots, a watchdog reset and a cut of its power by the host. Each
// variant's results have the test cases and the outcome classes of the
// same spec run on the QEMU target through U-Boot.
func TestBenchBoard(t *testing.T) {
	needBenchBoard(t)
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.fsb.hcl")
	os.WriteFile(path, []byte(fmt.Sprintf(benchBoardSpec, `"ext4", "btrfs"`, "matrix.v", benchBoardTests)), 0o644)
	s, p := loadSpec(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	runner, helper := testbin.Runner(t, arch.ARM64), testbin.Runner(t, "")

	qemuJob := testJob(t, s, p, filepath.Join(dir, "qemu"))
	qemuJob.Runner, qemuJob.HelperRunner = runner, helper
	qemuJob.QEMU.Accel, qemuJob.QEMU.Boot = "tcg", BootUBoot
	qemuRuns := make(chan map[string]*Outcome, 1)
	go func() { qemuRuns <- runJob(t, ctx, qemuJob) }()

	_, board := startBenchBoard(t, ctx)
	job := testJob(t, s, p, filepath.Join(dir, "board"))
	job.Runner, job.HelperRunner, job.Board = runner, helper, board
	start := time.Now()
	boards := runJob(t, ctx, job)
	t.Logf("%d variants on the bench board in %s", len(p.Variants), time.Since(start).Round(time.Second))
	qemus := <-qemuRuns
	for _, v := range p.Variants {
		t.Run(v.Name, func(t *testing.T) {
			if boards[v.Name] == nil || qemus[v.Name] == nil {
				t.Skip("did not complete (above)")
			}
			checkBenchBoardRun(t, boards[v.Name], board.Port)
			sameCases(t, boards[v.Name], qemus[v.Name])
		})
	}
}

// checkBenchBoardRun checks one variant's run on the bench board.
func checkBenchBoardRun(t *testing.T, o *Outcome, port string) {
	t.Helper()
	if !o.Summary.Complete || len(o.Summary.Missing()) > 0 {
		t.Errorf("complete %v, missing %v", o.Summary.Complete, o.Summary.Missing())
	}
	for _, r := range o.Summary.Results {
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s %s/%s #%d: %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
		}
		if r.Attrs["target"] != "board" || r.Attrs["port"] != port {
			t.Errorf("%s: attrs %v", r.Recipe, r.Attrs)
		}
		switch {
		case r.Recipe == "boot_time":
			if value(r, "host_boot") <= 0 || value(r, "phase_bootloader") <= 0 {
				t.Errorf("boot %d: root mount to prompt %v s, bootloader %v s", r.Iteration, value(r, "host_boot"), value(r, "phase_bootloader"))
			}
		case r.Name == "watchdog" && !strings.HasPrefix(r.Attrs["reset"], "watchdog reset (i6300ESB"):
			t.Errorf("watchdog: reset %q", r.Attrs["reset"])
		}
		t.Logf("%s %s/%s #%d: %v %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Metrics, r.Attrs["consistency"], r.Attrs["data"])
	}
	log, _ := os.ReadFile(o.Console)
	if !strings.Contains(string(log), "Found /extlinux/extlinux.conf") {
		t.Errorf("U-Boot did not boot the flashed image's extlinux.conf:\n%s", tail(o))
	}
}

// sameCases: the board's results are the QEMU target's, case for case,
// each power_loss iteration classified on both axes in both.
func sameCases(t *testing.T, board, vm *Outcome) {
	t.Helper()
	cases := func(o *Outcome) []string {
		var out []string
		for _, r := range o.Summary.Results {
			out = append(out, fmt.Sprintf("%s %s/%s #%d %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status))
			if r.Recipe == "power_loss" && (r.Attrs["consistency"] == "" || r.Attrs["data"] == "") {
				t.Errorf("%s %s/%s #%d on %s: not classified: %v", r.Recipe, r.Name, r.Case, r.Iteration, r.Attrs["target"], r.Attrs)
			}
		}
		slices.Sort(out)
		return out
	}
	if b, q := cases(board), cases(vm); !slices.Equal(b, q) {
		t.Errorf("the board's results\n  %s\nare not the QEMU target's\n  %s", strings.Join(b, "\n  "), strings.Join(q, "\n  "))
	}
}

// Commands of the failure test: flashOrFail fails to flash the variant
// named flash-fails and flashes the others with bmaptool; cycleOrNot
// does nothing for the variant no-power, and for silent switches the
// board on and silences its console five seconds later.
const (
	flashOrFail = "test-flash-or-fail"
	cycleOrNot  = "test-cycle-or-not"
)

// flashOrFailMain: IMAGE BMAP DIR; it keeps the variant's name in
// DIR/flashed.
func flashOrFailMain(args []string) int {
	image, bmap, dir := args[0], args[1], args[2]
	variant := filepath.Base(filepath.Dir(image))
	if variant == "flash-fails" {
		fmt.Fprintln(os.Stderr, "bmaptool: ERROR: cannot open destination file '/dev/sdz': No medium found")
		return 1
	}
	if err := os.WriteFile(filepath.Join(dir, "flashed"), []byte(variant), 0o644); err != nil {
		return 1
	}
	cmd := exec.Command("bmaptool", "copy", "--bmap", bmap, image, filepath.Join(dir, benchboard.DiskName))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if cmd.Run() != nil {
		return 1
	}
	return 0
}

// cycleOrNotMain: DIR.
func cycleOrNotMain(args []string) int {
	dir := args[0]
	variant, _ := os.ReadFile(filepath.Join(dir, "flashed"))
	if string(variant) == "no-power" {
		return 0
	}
	err := benchboard.Control(dir, "cycle")
	if err == nil && string(variant) == "silent" {
		err = benchboard.Control(dir, "mute-after 5s")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestBenchBoardFailures: a -flash that fails, a -power-cycle that does
// nothing and a console that goes silent each end their variant with
// what went wrong, within the bounds the board sets, and the next variant
// runs to its end.
func TestBenchBoardFailures(t *testing.T) {
	needBenchBoard(t)
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "failures.fsb.hcl")
	os.WriteFile(path, []byte(fmt.Sprintf(benchBoardSpec, `"flash-fails", "no-power", "silent", "ok"`, `"ext4"`,
		`test "boot_time" "rootfs" { iterations = 1 }`)), 0o644)
	s, p := loadSpec(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	bb, board := startBenchBoard(t, ctx)
	self, _ := os.Executable()
	bench := filepath.Dir(bb.Disk())
	board.Flash = []string{self, flashOrFail, "{image}", "{bmap}", bench}
	board.PowerCycle = []string{self, cycleOrNot, bench}
	board.PowerOnTimeout = 10 * time.Second
	job := testJob(t, s, p, filepath.Join(dir, "out"))
	job.Runner, job.HelperRunner, job.Board = testbin.Runner(t, arch.ARM64), testbin.Runner(t, ""), board
	job.Silence = 20 * time.Second
	want := map[string]string{
		"flash-fails": "flashing: " + self + " " + flashOrFail,
		"no-power":    "the board printed nothing on its console within 10s",
		"silent":      "the console was silent for 20s: the board hangs, or its console is cut off; the last lines were:",
	}
	for _, r := range Run(ctx, job) {
		t.Logf("%s: %s, %v", r.Variant, r.Took.Round(time.Second), r.Err)
		switch w, fails := want[r.Variant]; {
		case !fails && r.Err != nil:
			t.Errorf("%s: %v (console: %s)", r.Variant, r.Err, tail(r.Outcome))
		case !fails && (!r.Outcome.Summary.Complete || len(r.Outcome.Summary.Results) != 2):
			t.Errorf("%s: complete %v, %d results", r.Variant, r.Outcome.Summary.Complete, len(r.Outcome.Summary.Results))
		case fails && (r.Err == nil || !strings.Contains(r.Err.Error(), w)):
			t.Errorf("%s: %v, want %q", r.Variant, r.Err, w)
		case fails && errors.Is(r.Err, context.DeadlineExceeded):
			t.Errorf("%s: ended at the run's timeout", r.Variant)
		}
	}
}
