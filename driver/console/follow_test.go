package console

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// frame encodes r as console lines.
func frame(t *testing.T, r resultframe.Result) string {
	t.Helper()
	lines, err := resultframe.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\r\n") + "\r\n"
}

// step is one write to the console after a pause.
type step struct {
	pause time.Duration
	text  string
}

// play writes the steps into the pty master at their times and records
// when each write began, so that checks compare with what really happened
// on a loaded machine rather than with the intended pauses.
func play(master *os.File, steps []step, sent []time.Time) {
	for i, s := range steps {
		time.Sleep(s.pause)
		sent[i] = time.Now()
		master.Write([]byte(s.text))
	}
	time.Sleep(50 * time.Millisecond)
	master.Close()
}

func TestFollowPairsBootsWithResults(t *testing.T) {
	master, path, err := capture.OpenPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	src, err := capture.OpenSerial(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	boot := func(n int) resultframe.Result {
		return resultframe.Result{RunID: "r1", Seq: uint64(n), Recipe: "boot_time", Name: "rootfs", Case: "single",
			Iteration: n, Status: resultframe.StatusOK,
			Metrics: []resultframe.Metric{{Name: "target_boot", Value: 0.3, Unit: "s"}}}
	}
	mount := resultframe.Result{RunID: "r1", Seq: 3, Recipe: "mount_time", Name: "bench", Case: "single",
		Iteration: 1, Status: resultframe.StatusOK}
	done := resultframe.Result{RunID: "r1", Seq: 4, Recipe: "fsbench", Name: "plan", Case: "complete",
		Status: resultframe.StatusOK, Metrics: []resultframe.Metric{{Name: "results", Value: 4}}}
	corrupt := strings.Replace(frame(t, mount), "@@FSB1", "@@FSB1", 1)
	corrupt = corrupt[:40] + "X" + corrupt[41:]

	steps := []step{
		{0, "[    0.000000] Linux version 6.1.0-57-amd64\r\n"},
		{20 * time.Millisecond, "[    1.200000] fsbench-init: Mounted root (ext4 filesystem) on /dev/vda1\r\n"},
		{300 * time.Millisecond, "\r\nfsbench login: "}, // a prompt has no newline
		{100 * time.Millisecond, "fsbench-runner: boot_time.rootfs/single iteration 1/2\r\n" + frame(t, boot(1))},
		{50 * time.Millisecond, "[    0.000000] Linux version 6.1.0-57-amd64\r\n"},
		{20 * time.Millisecond, "[    1.100000] VFS: Mounted root (ext4 filesystem) on device 254:1.\r\n"},
		{200 * time.Millisecond, "[    1.300000] fsbench-runner: userspace ready\r\n"},
		// The result comes before the prompt here: it waits for it.
		{100 * time.Millisecond, frame(t, boot(2))},
		{800 * time.Millisecond, "fsbench login: "},
		{100 * time.Millisecond, "\r\n" + corrupt + frame(t, mount) + frame(t, mount) + frame(t, done)},
	}
	sent := make([]time.Time, len(steps))
	played := make(chan struct{})
	go func() { play(master, steps, sent); close(played) }()

	store := filepath.Join(t.TempDir(), "results.jsonl")
	st, err := OpenStore(store)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Follow(ctx, src, Options{Store: st, Log: &log, Attrs: map[string]string{"target": "test"},
		BootTimed: func(r resultframe.Result) bool { return r.Recipe == "boot_time" }})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Complete || sum.Expected != 4 || len(sum.Missing()) != 0 || sum.Stop != "complete" {
		t.Fatalf("complete %v, expected %d, missing %v, stop %s", sum.Complete, sum.Expected, sum.Missing(), sum.Stop)
	}
	if len(sum.Boots) != 2 {
		t.Fatalf("%d boots, want 2", len(sum.Boots))
	}
	<-played
	// Steps 1 and 2 are the first boot's root mount and prompt (the
	// prompt line's first byte is the "\r\n" before it), 5 and 8 the
	// second's, whose ready line is step 6.
	// The stamps are checked for exactness by package capture's tests; here a
	// loaded machine may delay a read by tens of milliseconds, so the
	// bound only has to tell the two boots (about 0.3 s and 0.9 s) apart.
	wants := []time.Duration{sent[2].Sub(sent[1]), sent[8].Sub(sent[5])}
	for i, want := range wants {
		got, ok := sum.Boots[i].Interval()
		if !ok || got < want-150*time.Millisecond || got > want+150*time.Millisecond {
			t.Errorf("boot %d: root mount to prompt %v (%v), want %v", i+1, got, ok, want)
		}
	}
	host, ready := map[int]float64{}, map[int]float64{}
	for _, r := range sum.Results {
		if r.Attrs["target"] != "test" {
			t.Errorf("result %d lacks the target attribute", r.Seq)
		}
		for _, m := range r.Metrics {
			if m.Name == "host_boot" {
				host[r.Iteration] = m.Value
			}
			if m.Name == "host_ready" {
				ready[r.Iteration] = m.Value
			}
		}
	}
	// Each boot_time result carries the interval of the boot it was
	// printed in, whether it came before or after that boot's prompt.
	for i := range wants {
		if got, _ := sum.Boots[i].Interval(); host[i+1] != got.Seconds() {
			t.Errorf("host_boot of iteration %d is %v, want boot %d's %v", i+1, host[i+1], i+1, got.Seconds())
		}
	}
	// Only the second boot printed the runner's ready line.
	if want := sent[6].Sub(sent[5]).Seconds(); ready[2] < want-0.15 || ready[2] > want+0.15 || len(ready) != 1 {
		t.Errorf("host_ready %v, want only boot 2's, about %.3f s", ready, want)
	}
	var codes []resultframe.Code
	for _, p := range sum.Problems {
		codes = append(codes, p.Code)
	}
	if len(codes) != 2 || codes[0] != resultframe.CodeChecksum || codes[1] != resultframe.CodeDuplicate {
		t.Errorf("problems %v, want one checksum error and one duplicate", sum.Problems)
	}
	stored, err := ReadResults(store)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 4 {
		t.Errorf("stored %d results, want 4", len(stored))
	}
	if !strings.Contains(log.String(), "] fsbench login:") {
		t.Errorf("log lacks the prompt:\n%s", log.String())
	}
}

func TestStoreKeepsEachResultOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	r := resultframe.Result{RunID: "a", Seq: 1, Status: resultframe.StatusOK}
	for range 2 {
		st, err := OpenStore(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Append(r); err != nil {
			t.Fatal(err)
		}
		st.Append(r)
		st.Close()
	}
	got, err := ReadResults(path)
	if err != nil || len(got) != 1 {
		t.Fatalf("%d results (%v), want 1", len(got), err)
	}
}

// A target whose kernel panics boot after boot in its tests (QEMU resets
// it on panic) ends the follow with the panic, not at the run's timeout.
func TestFollowStopsOnRepeatedPanics(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 5; i++ {
		in.WriteString("[    0.000000] Linux version 6.1.0-57-amd64\r\n")
		in.WriteString("[    1.200000] fsbench-init: Mounted root (ext4 filesystem) on /dev/vda1\r\n")
		in.WriteString("[    8.387390] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\r\n")
	}
	var log strings.Builder
	sum, err := Follow(context.Background(), strings.NewReader(in.String()), Options{Log: &log})
	if !errors.Is(err, ErrPanics) || sum.Stop != "panic" || !strings.Contains(err.Error(), "Attempted to kill init") {
		t.Fatalf("err %v, stop %q", err, sum.Stop)
	}
	if n := strings.Count(log.String(), "Kernel panic"); n != MaxPanics {
		t.Errorf("log holds %d panic lines, want %d", n, MaxPanics)
	}
}
