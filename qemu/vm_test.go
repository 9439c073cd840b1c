package qemu

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/wire/arch"
)

// TestProbeKVM logs the verdict on this host. It cannot require either
// answer, but it must come within the probe's bound, with a reason, and
// the second call must reuse it.
func TestProbeKVM(t *testing.T) {
	needQEMU(t, "x86_64")
	_, image := guestKernel(t, "x86_64")
	m := Machine{Arch: arch.X86_64, Kernel: image}
	start := time.Now()
	ok, why := ProbeKVM(context.Background(), m, testLog(t))
	first := time.Since(start)
	t.Logf("KVM usable: %v (%s), decided in %v", ok, why, first.Round(time.Millisecond))
	if first > ProbeTimeout+10*time.Second || why == "" {
		t.Errorf("probe took %v, reason %q", first, why)
	}
	start = time.Now()
	ok2, why2 := ProbeKVM(context.Background(), m, testLog(t))
	if ok2 != ok || why2 != why || time.Since(start) > 100*time.Millisecond {
		t.Errorf("second probe: %v %q after %v", ok2, why2, time.Since(start))
	}
	// An aarch64 guest on an x86_64 host never gets KVM, without a boot.
	if host, _ := arch.Host(); host == arch.X86_64 {
		if ok, why := ProbeKVM(context.Background(), Machine{Arch: "aarch64", Kernel: image}, testLog(t)); ok ||
			!strings.Contains(why, "no KVM for aarch64 guests on a x86_64 host") {
			t.Errorf("aarch64: %v %s", ok, why)
		}
	}
}

// TestStartQEMUFails: QEMU's own error reaches the caller.
func TestStartQEMUFails(t *testing.T) {
	needQEMU(t, "x86_64")
	kern := filepath.Join(t.TempDir(), "not-a-kernel")
	os.WriteFile(kern, []byte("hello"), 0o644)
	vm, err := Start(context.Background(), Machine{Kernel: kern, Accel: "tcg"}, testLog(t))
	if err == nil {
		err = vm.Wait()
		vm.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "qemu-system-x86_64: exit status 1: qemu: invalid kernel header") {
		t.Errorf("err = %v, want QEMU's message", err)
	}
	t.Log(err)
}

// TestStopping kills one VM with Kill and one by ending its context, both
// in the middle of the kernel's boot, and checks that the temporary
// directory of the console socket is gone once Start returns.
func TestStopping(t *testing.T) {
	needQEMU(t, "x86_64")
	_, image := guestKernel(t, "x86_64")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Start's os.MkdirTemp goes
	for _, how := range []string{"Kill", "context"} {
		ctx, cancel := context.WithCancel(context.Background())
		vm, err := Start(ctx, Machine{Kernel: image, Accel: "tcg", MemoryMiB: 128}, testLog(t))
		if err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("%s: %d entries left in TMPDIR after Start", how, len(ents))
		}
		buf := make([]byte, 64)
		if _, err := vm.Console().Read(buf); err != nil {
			t.Fatalf("%s: reading the console: %v", how, err)
		}
		start := time.Now()
		var want error
		if how == "Kill" {
			if err := vm.Kill(); err != nil {
				t.Fatal(err)
			}
			want = ErrKilled
		} else {
			cancel()
			want = context.Canceled
		}
		select {
		case <-vm.Exited():
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: QEMU still runs", how)
		}
		if err := vm.Wait(); !errors.Is(err, want) {
			t.Errorf("%s: Wait = %v, want %v", how, err, want)
		}
		t.Logf("%s: QEMU gone after %v", how, time.Since(start).Round(time.Millisecond))
		vm.Close()
		cancel()
	}
}
