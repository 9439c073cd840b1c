package payload

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/runplan"
)

func quickstart(t *testing.T) (*plan.Plan, *plan.Variant) {
	t.Helper()
	_, p, diags := plan.LoadSealed("../../examples/quickstart.fsb.hcl", spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p, &p.Variants[0]
}

func TestCompileQuickstart(t *testing.T) {
	p, v := quickstart(t)
	rp, err := Compile(p, v)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, tst := range v.Tests {
		cases += len(tst.Cases)
	}
	if len(rp.Steps) != cases || cases == 0 {
		t.Fatalf("%d steps for %d cases", len(rp.Steps), cases)
	}
	if rp.Steps[0].Recipe != "boot_time" || rp.Steps[0].On != "rootfs" {
		t.Errorf("first step %+v, want boot_time on the root partition", rp.Steps[0])
	}
	bench, ok := rp.Partition("bench")
	if !ok || bench.Device != "/dev/vda2" || bench.FS != v.Images[0].Partitions[1].Filesystem.Type ||
		bench.Mountpoint != "/mnt/bench" || len(bench.Flags) != 1 || bench.Flags[0] != "noatime" {
		t.Errorf("bench partition %+v", bench)
	}
	if rp.StatePartition != "rootfs" || rp.StateDir != runplan.DefaultState {
		t.Errorf("state on %s:%s", rp.StatePartition, rp.StateDir)
	}
	if !strings.Contains(strings.Join(bench.Check, " "), "{device}") {
		t.Errorf("check %q does not name {device}", bench.Check)
	}
	// The root is fsbench's busybox userland: the runner may reboot
	// without init.
	if rp.Board.Userland != "busybox" {
		t.Errorf("userland %q, want busybox", rp.Board.Userland)
	}
	// What the runner reads back is what was compiled.
	var b bytes.Buffer
	if err := rp.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := runplan.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	size, err := back.Steps[1].Params.Int("size")
	if err != nil || size != 8<<20 { // the quickstart's fio_size
		t.Errorf("fio size %d (%v)", size, err)
	}
}

func TestDevicePath(t *testing.T) {
	for storage, want := range map[string]string{"vda": "/dev/vda3", "mmcblk0": "/dev/mmcblk0p3", "nvme0n1": "/dev/nvme0n1p3", "sda": "/dev/sda3"} {
		if got := DevicePath(storage, 3); got != want {
			t.Errorf("%s: %s, want %s", storage, got, want)
		}
	}
}

func TestTarIsReproducibleAndComplete(t *testing.T) {
	p, v := quickstart(t)
	rp, err := Compile(p, v)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "fsbench-runner-amd64")
	os.WriteFile(bin, []byte("\x7fELF runner"), 0o755)
	for _, init := range []string{"busybox", "sysvinit", "systemd"} {
		rp.Board.Init = init
		pl, err := New(rp, bin)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := pl.WriteTar(&a, 315532800); err != nil {
			t.Fatal(err)
		}
		pl.WriteTar(&b, 315532800)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: two tarballs of one payload differ", init)
		}
		entries := map[string]*tar.Header{}
		tr := tar.NewReader(&a)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Uid != 0 || h.Gid != 0 || h.ModTime.Unix() != 315532800 {
				t.Errorf("%s: %d:%d at %v", h.Name, h.Uid, h.Gid, h.ModTime)
			}
			entries[h.Name] = h
		}
		if h := entries["usr/bin/fsbench-runner"]; h == nil || h.Mode != 0o755 || h.Size != 11 {
			t.Errorf("%s: runner entry %+v", init, h)
		}
		if entries["etc/fsbench/plan.json"] == nil {
			t.Errorf("%s: no plan", init)
		}
		hook, unit := entries["etc/init.d/S99fsbench"] != nil, entries["etc/systemd/system/fsbench.service"] != nil
		if hook != (init != "systemd") || unit != (init == "systemd") {
			t.Errorf("%s: sysv hook %v, systemd unit %v", init, hook, unit)
		}
		if l := entries["etc/rc5.d/S99fsbench"]; (l != nil) != (init == "sysvinit") {
			t.Errorf("%s: rc5.d link %v", init, l)
		}
	}
}

func TestCompileRefusesReadOnlyRootWithoutStatePartition(t *testing.T) {
	p, v := quickstart(t)
	v.Images[0].Partitions[0].Filesystem.ReadOnly = true
	for i := range v.Tests {
		v.Tests[i].On = "bench"
	}
	if _, err := Compile(p, v); err == nil || !strings.Contains(err.Error(), "nowhere to keep its progress") {
		t.Errorf("err = %v", err)
	}
}

func TestFindRunnerSaysWhatToDo(t *testing.T) {
	_, err := FindRunner("", "riscv64")
	if err == nil {
		t.Skip("a riscv64 runner sits beside the test binary")
	}
	for _, want := range []string{"fsbench-runner-riscv64", "go build", "-runner", RunnerEnv} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if _, err := FindRunner("/nonexistent/runner", "x86_64"); err == nil {
		t.Error("a missing explicit runner was accepted")
	}
}

// A runner of another architecture than the board's would not start on
// the target: an explicit one is refused, naming both.
func TestFindRunnerRefusesAnotherArchitecture(t *testing.T) {
	amd64 := testbin.Runner(t, arch.X86_64)
	if got, err := FindRunner(amd64, arch.X86_64); err != nil || got != amd64 {
		t.Fatalf("the x86_64 runner for an x86_64 board: %q, %v", got, err)
	}
	_, err := FindRunner(amd64, arch.ARM64)
	if err == nil || !strings.Contains(err.Error(), "EM_X86_64") || !strings.Contains(err.Error(), "GOARCH=arm64") {
		t.Errorf("the x86_64 runner for an arm64 board: %v", err)
	}
	script := filepath.Join(t.TempDir(), "runner.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	if _, err := FindRunner(script, arch.X86_64); err == nil || !strings.Contains(err.Error(), "not an ELF program") {
		t.Errorf("a script as the runner: %v", err)
	}
}

// Every partition of the runner's plan carries its checker, or why its
// type has none: the runner knows no filesystem by name.
func TestCompileCarriesTheCheckerOrWhyNone(t *testing.T) {
	p, _ := quickstart(t)
	noCheck := 0
	for i := range p.Variants {
		rp, err := Compile(p, &p.Variants[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range rp.Partitions {
			typ, ok := filesystems.Lookup(part.FS)
			switch {
			case !ok:
			case typ.Checker != nil && (len(part.Check) == 0 || part.NoCheck != ""):
				t.Errorf("%s %s: check %q, no_check %q", p.Variants[i].Name, part.Name, part.Check, part.NoCheck)
			case typ.Checker == nil && (len(part.Check) > 0 || part.NoCheck != typ.NoChecker):
				t.Errorf("%s %s: check %q, no_check %q; want %q", p.Variants[i].Name, part.Name, part.Check, part.NoCheck, typ.NoChecker)
			case typ.Checker == nil:
				noCheck++
			}
		}
	}
	if noCheck == 0 {
		t.Error("the quickstart has no nilfs2 partition to check the reason on")
	}
}
