package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// ubootBoot is a boot through U-Boot as QEMU's arm64 machine prints it,
// in timed writes.
func ubootBoot(t *testing.T, iter int, last bool) []step {
	r := resultframe.Result{RunID: "r1", Seq: uint64(iter), Recipe: "boot_time", Name: "rootfs", Case: "single",
		Iteration: iter, Status: resultframe.StatusOK, Metrics: []resultframe.Metric{{Name: "target_boot", Value: 0.3, Unit: "s"}}}
	steps := []step{
		{0, "\r\n\r\nU-Boot 2023.01+dfsg-2+deb12u3 (Jun 22 2026 - 08:38:07 +0000)\r\n\r\nDRAM:  512 MiB\r\n"},
		{150 * time.Millisecond, "Scanning virtio 0:1...\r\nFound /boot/extlinux/extlinux.conf\r\nRetrieving file: /boot/Image\r\n"},
		{100 * time.Millisecond, "Starting kernel ...\r\n\r\n"},
		{250 * time.Millisecond, "[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]\r\n" +
			"[    0.000000] Linux version 6.1.0-57-arm64 (debian-kernel@lists.debian.org)\r\n"},
		{200 * time.Millisecond, "[    8.000000] Run /init as init process\r\n"},
		{100 * time.Millisecond, "[    9.473655] fsbench-init: Mounted root (ext4 filesystem) on /dev/vda1\r\n"},
		{100 * time.Millisecond, "[    9.783267] Not activating Mandatory Access Control as /sbin/tomoyo-init does not exist.\r\n"},
		{100 * time.Millisecond, "[   10.492017] fsbench-runner: userspace ready\r\n"},
		{100 * time.Millisecond, "\r\nfsbench login: "},
		{50 * time.Millisecond, "fsbench-runner: boot_time.rootfs/single iteration 1/2\r\n" + frame(t, r)},
	}
	if last {
		done := resultframe.Result{RunID: "r1", Seq: uint64(iter + 1), Recipe: "fsbench", Name: "plan", Case: "complete",
			Status: resultframe.StatusOK, Metrics: []resultframe.Metric{{Name: "results", Value: float64(iter + 1)}}}
		return append(steps, step{20 * time.Millisecond, frame(t, done)})
	}
	// QEMU takes a moment to reset.
	return append(steps, step{20 * time.Millisecond, "[   11.0] reboot: Restarting system\r\n"}, step{200 * time.Millisecond, ""})
}

// Two boots through U-Boot: each is divided at its banner, hand-over,
// kernel line, root mount, init and prompt, on the host's clock from its
// first byte (the second from its reset), and the boot_time result
// printed in it carries its phases. The durations are compared with the
// times the lines were written; a loaded machine can hold the reader
// back long enough to merge two marks, so the playback is tried up to
// three times, and a mark that is wrong every time fails.
func TestFollowTimesBootPhases(t *testing.T) {
	var timing []string
	for attempt := 1; attempt <= 3; attempt++ {
		if timing = playPhases(t); len(timing) == 0 {
			return
		}
		t.Logf("attempt %d: %s", attempt, strings.Join(timing, "; "))
	}
	t.Error(strings.Join(timing, "\n"))
}

// playPhases plays two boots into a pty and follows them. It fails t for
// what must hold whatever the timing, and returns the phases whose
// durations differ from the playback's by more than 100 ms.
func playPhases(t *testing.T) (timing []string) {
	t.Helper()
	master, path, err := capture.OpenPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	src, err := capture.OpenSerial(path, capture.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	steps := append(ubootBoot(t, 1, false), ubootBoot(t, 2, true)...)
	sent := make([]time.Time, len(steps))
	played := make(chan struct{})
	go func() { play(master, steps, sent); close(played) }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Follow(ctx, src, Options{BootTimed: func(r resultframe.Result) bool { return r.Recipe == "boot_time" }})
	if err != nil {
		t.Fatal(err)
	}
	<-played
	if len(sum.Boots) != 2 || len(sum.Results) != 3 {
		t.Fatalf("%d boots, %d results", len(sum.Boots), len(sum.Results))
	}
	n := len(ubootBoot(t, 1, false))
	for i, b := range sum.Boots {
		s := sent[i*n : min((i+1)*n, len(sent))]
		want := map[string]time.Duration{
			PhaseBootloader: s[2].Sub(s[0]), PhaseKernelLoad: s[3].Sub(s[2]), PhaseKernel: s[5].Sub(s[3]),
			PhaseInit: s[6].Sub(s[5]), PhaseUserspace: s[8].Sub(s[6]),
		}
		if i == 1 {
			want[PhaseFirmware] = s[0].Sub(sent[n-2])
			if b.Reset.IsZero() || b.Start.Before(b.Reset) {
				t.Errorf("boot 2: reset %v, first byte %v", b.Reset, b.Start)
			}
		}
		got := map[string]time.Duration{}
		for _, p := range b.Phases() {
			got[p.Name] = p.Duration
		}
		if len(got) != len(want) {
			timing = append(timing, fmt.Sprintf("boot %d: phases %v, want %v", i+1, got, want))
		}
		for name, w := range want {
			if d := got[name] - w; d < -100*time.Millisecond || d > 100*time.Millisecond {
				timing = append(timing, fmt.Sprintf("boot %d: %s %v, want about %v", i+1, name, got[name], w))
			}
		}
		r := sum.Results[i]
		var total time.Duration
		for _, p := range b.Phases() {
			total += p.Duration
			if v := value(r, "phase_"+p.Name); v != p.Duration.Seconds() {
				t.Errorf("result %d: phase_%s %v, want %v", i+1, p.Name, v, p.Duration.Seconds())
			}
		}
		if v := value(r, "host_power_on"); v != total.Seconds() || v != b.Prompt.Sub(b.Begin()).Seconds() {
			t.Errorf("result %d: host_power_on %v, phases add up to %v", i+1, v, total.Seconds())
		}
	}
	return timing
}

func value(r resultframe.Result, name string) float64 {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return -1
}

// Boots that cannot go on end Follow at once with what the console showed.
func TestFollowDiagnosesFailedBoots(t *testing.T) {
	uboot := "U-Boot 2023.01+dfsg-2+deb12u3 (Jun 22 2026 - 08:38:07 +0000)\r\n" +
		"scanning bus for devices...\r\nDevice 0: unknown device\r\nScanning virtio 0:1...\r\n"
	kernel := uboot + "Starting kernel ...\r\n[    0.000000] Linux version 6.1.0-57-arm64\r\n"
	for _, tc := range []struct {
		name, console string
		reason, line  string // in the error
	}{
		{"no boot file", uboot + "No ethernet found.\r\n=> ", "found nothing it could boot", "Scanning virtio 0:1"},
		{"unmountable root", kernel + "[    2.1] VFS: Cannot open root device \"PARTUUID=0badc0de-02\" or unknown-block(0,0): error -6\r\n" +
			"[    2.2] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\r\n",
			"could not mount the root filesystem", "PARTUUID=0badc0de-02"},
		{"no filesystem driver", kernel + "[    2.1] No filesystem could mount root, tried:\r\n", "no filesystem driver", "Linux version"},
		{"initramfs", kernel + "[    3.0] fsbench-init: error: mounting /dev/vda1 on /newroot (f2fs) failed: no such device\r\n",
			"initramfs could not start", "no such device"},
		{"panic before root", kernel + "[    3.0] Kernel panic - not syncing: Oops\r\n", "panicked before", "Oops"},
		{"runner error", kernel + "[    2.0] VFS: Mounted root (ext4 filesystem) on device 254:2.\r\n" +
			"fsbench-runner: error: json: unsupported value: +Inf\r\n", "runner stopped with an error", "unsupported value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Follow(context.Background(), strings.NewReader(tc.console), Options{Idle: 20 * time.Millisecond})
			var bf *BootFailure
			if !errors.As(err, &bf) || !errors.Is(err, ErrBootFailed) || sum.Stop != "boot-failed" {
				t.Fatalf("err %v, stop %q", err, sum.Stop)
			}
			if bf.Boot != 1 || !strings.Contains(bf.Reason, tc.reason) || !strings.Contains(err.Error(), tc.line) {
				t.Errorf("failure %v, want %q showing %q", err, tc.reason, tc.line)
			}
		})
	}
}

// A boot that waits for a root device that never comes ends after
// RootWait, while the console stays open; one whose device comes in time
// goes on.
func TestFollowRootWait(t *testing.T) {
	for _, comes := range []bool{false, true} {
		pr, pw := io.Pipe()
		go func() {
			io.WriteString(pw, "[    0.0] Linux version 6.1.0-57-amd64\r\n[    1.0] Waiting for root device PARTUUID=0badc0de-02...\r\n")
			if comes {
				time.Sleep(100 * time.Millisecond)
				io.WriteString(pw, "[    1.1] VFS: Mounted root (ext4 filesystem) on device 254:2.\r\n")
				time.Sleep(600 * time.Millisecond)
				pw.Close()
			}
		}()
		start := time.Now()
		sum, err := Follow(context.Background(), pr, Options{RootWait: 300 * time.Millisecond})
		took := time.Since(start)
		pr.Close()
		if comes {
			if err != nil || sum.Stop != "eof" || took < 600*time.Millisecond {
				t.Errorf("device in time: err %v, stop %q after %v", err, sum.Stop, took)
			}
			continue
		}
		var bf *BootFailure
		if !errors.As(err, &bf) || !strings.Contains(bf.Reason, "did not appear within 300ms") ||
			!strings.Contains(err.Error(), "Waiting for root device PARTUUID=0badc0de-02") {
			t.Fatalf("err %v", err)
		}
		if took > 5*time.Second || bf.Seen.IsZero() || time.Since(bf.Seen) < 300*time.Millisecond {
			t.Errorf("the failure took %v, %v after the wait began", took, time.Since(bf.Seen))
		}
	}
}

// QEMU's direct boot on x86_64 as it prints: SeaBIOS, its option ROM,
// then the kernel, whose first line on the console is "Command line:".
func TestFollowMarksDirectBoot(t *testing.T) {
	in := "\x1bc\x1b[?7l\x1b[2J\x1b[0mSeaBIOS (version 1.16.2-debian-1.16.2-1)\r\n" +
		"Booting from ROM..\r\n" +
		"[    0.000000] Command line: root=PARTUUID=76c9ab85-02 rootfstype=ext4 rw rootwait console=ttyS0,115200n8\r\n" +
		"[    0.000000] BIOS-provided physical RAM map:\r\n" +
		"[    3.654571] fsbench-init: Mounted root (ext4 filesystem) on /dev/vda1\r\n" +
		"[    3.700000] Not activating Mandatory Access Control as /sbin/tomoyo-init does not exist.\r\n" +
		"fsbench login: \r\n"
	sum, err := Follow(context.Background(), strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Boots) != 1 {
		t.Fatalf("%d boots", len(sum.Boots))
	}
	b := sum.Boots[0]
	for name, at := range map[string]time.Time{"banner": b.Banner, "hand-over": b.Handover, "kernel": b.Kernel,
		"root mount": b.RootMount, "init": b.Init, "prompt": b.Prompt} {
		if at.IsZero() {
			t.Errorf("the %s mark was not seen", name)
		}
	}
}
