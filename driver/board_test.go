package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
)

const boardSpec = `
board "bench-board" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "mmcblk0"
}

image "card" {
  table = "mbr"
  size  = "64MiB"

  partition "rootfs" {
    size = "48MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

test "boot_time" "rootfs" {
  iterations = 1
}
`

// TestBoardRun runs a variant on a "board" whose console is a real pty:
// the flash command copies the image, the power-cycle command flips a
// file that makes the test play a boot into the pty, with the frames a
// runner prints. The host must stamp the boot, pair the result with it and
// store it.
func TestBoardRun(t *testing.T) {
	testenv.Tool(t, "fakeroot")
	dir := t.TempDir()
	specPath := filepath.Join(dir, "board.fsb.hcl")
	os.WriteFile(specPath, []byte(boardSpec), 0o644)
	s, p := loadSpec(t, specPath)

	master, slave, err := capture.OpenPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	power := filepath.Join(dir, "power")
	flashed := filepath.Join(dir, "card.img")
	go playBoot(t, master, power)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	job := testJob(t, s, p, filepath.Join(dir, "out"))
	job.Slots = nil // no VM
	job.Board = &Board{Port: slave, Baud: 115200, Flash: []string{"cp", "{image}", flashed}, PowerCycle: []string{"touch", power}}
	o := runJob(t, ctx, job)[p.Variants[0].Name]
	if o == nil {
		return
	}
	if fi, err := os.Stat(flashed); err != nil || fi.Size() != 64<<20 {
		t.Errorf("the flash command did not copy the image: %v", err)
	}
	if !o.Summary.Complete || len(o.Summary.Results) != 2 {
		t.Fatalf("complete %v, %d results", o.Summary.Complete, len(o.Summary.Results))
	}
	r := o.Summary.Results[0]
	host := value(r, "host_boot")
	if r.Recipe != "boot_time" || r.Attrs["target"] != "board" || r.Attrs["port"] != slave || host < 0.25 || host > 0.4 {
		t.Errorf("result %+v: host_boot %v, want about 0.3 s", r, host)
	}
	log, _ := os.ReadFile(o.Console)
	if !strings.Contains(string(log), "fsbench login:") {
		t.Errorf("console log:\n%s", log)
	}
}

// playBoot waits for power and plays one boot into the pty master.
func playBoot(t *testing.T, master *os.File, power string) {
	for {
		if _, err := os.Stat(power); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	frames := func(r resultframe.Result) string {
		lines, err := resultframe.Encode(r)
		if err != nil {
			t.Error(err)
		}
		return strings.Join(lines, "\r\n") + "\r\n"
	}
	boot := resultframe.Result{RunID: "b1", Seq: 1, Recipe: "boot_time", Name: "rootfs", Case: "single", Iteration: 1,
		Status: resultframe.StatusOK, Metrics: []resultframe.Metric{{Name: "target_boot", Value: 0.28, Unit: "s"}}}
	done := resultframe.Result{RunID: "b1", Seq: 2, Recipe: "fsbench", Name: "plan", Case: "complete",
		Status: resultframe.StatusOK, Metrics: []resultframe.Metric{{Name: "results", Value: 2}}}
	for _, s := range []struct {
		pause time.Duration
		text  string
	}{
		{50 * time.Millisecond, "[    0.000000] Linux version 6.1.0 (board)\r\n"},
		{100 * time.Millisecond, "[    2.000000] VFS: Mounted root (ext4 filesystem) on device 179:2.\r\n"},
		{300 * time.Millisecond, "\r\nfsbench login: "},
		{100 * time.Millisecond, frames(boot) + frames(done)},
	} {
		time.Sleep(s.pause)
		master.Write([]byte(s.text))
	}
}
