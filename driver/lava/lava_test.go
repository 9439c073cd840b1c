package lava

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/report"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

var update = flag.Bool("update", false, "rewrite the golden job definitions")

func testLog() *logrus.Logger {
	l := logrus.New()
	l.Out = os.Stderr
	l.Level = logrus.WarnLevel
	return l
}

// needTools skips t unless the host has what building and checking a
// variant's jobs needs.
func needTools(t *testing.T, a arch.Arch, extra ...string) {
	t.Helper()
	for _, tool := range append([]string{"apt-get", "fakeroot", "mke2fs"}, extra...) {
		testenv.Tool(t, tool)
	}
	if err := exec.Command(Python, "-c", "import lava_common.schemas").Run(); err != nil {
		testenv.Missing(t, "Debian's lava-common")
	}
	if a != arch.X86_64 {
		if err := debpkg.CheckArch(context.Background(), a.Debian()); errors.Is(err, debpkg.ErrForeignArchNotConfigured) {
			testenv.Missing(t, err.Error())
		}
	}
}

// build builds every variant of the spec at path into out and prepares
// what its jobs download, as 'fsbench lava jobs' does.
func build(t *testing.T, ctx context.Context, path, out string, boot string, vars ...string) []Variant {
	t.Helper()
	s, p, diags := plan.LoadSealed(path, spec.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var vs []Variant
	for _, v := range p.Variants {
		bin := testbin.Runner(t, v.Board.Arch)
		if _, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: out, SpecDir: s.Dir, Epoch: 315532800, Jobs: 1,
			Log: testLog(), Runner: bin, HelperRunner: testbin.Runner(t, ""), CacheDir: testbin.CacheDir()}); err != nil {
			t.Fatalf("variant %s: %v", v.Name, err)
		}
		lv := Variant{Name: v.Name, Dir: filepath.Join(out, v.Name), Board: v.Board}
		if v.Board.LAVA != nil && v.Board.LAVA.DeviceType == spec.LAVAQEMU {
			var err error
			if boot == BootUBoot {
				err = PrepareUBoot(&lv)
			} else {
				err = PrepareDirect(ctx, testLog(), &lv, driver.QEMU{KernelCache: filepath.Join(testbin.CacheDir(), "kernels")}, bin)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		vs = append(vs, lv)
	}
	return vs
}

// writeJobs writes the jobs of vs into dir and returns their paths.
func writeJobs(t *testing.T, vs []Variant, opt Options, dir string) []string {
	t.Helper()
	var paths []string
	for _, v := range vs {
		jobs, err := Jobs(v, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			b, err := j.Definition.YAML("LAVA job for variant " + j.Variant)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, j.File)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	return paths
}

// checkSchema fails t for every job LAVA's schema refuses.
func checkSchema(t *testing.T, paths ...string) {
	t.Helper()
	bad, err := ValidateSchema(context.Background(), paths...)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range bad {
		t.Errorf("LAVA's schema refuses %s", e)
	}
}

// masked hides what changes with the tools and the runner, not with the
// jobs: the files' digests and the Debian kernel's version.
func masked(b []byte) []byte {
	b = regexp.MustCompile(`sha256sum: [0-9a-f]{64}`).ReplaceAll(b, []byte("sha256sum: <sha256>"))
	b = regexp.MustCompile(`fsbench.fingerprint: [0-9a-f]{64}`).ReplaceAll(b, []byte("fsbench.fingerprint: <fingerprint>"))
	return regexp.MustCompile(`vmlinu[xz]-[0-9][^ /"\n]*`).ReplaceAll(b, []byte("vmlinux-<version>"))
}

// The jobs of a qemu device, of a real board through U-Boot, and of a
// spec with two variants and repetitions: each one LAVA's schema takes
// and, where a device dictionary is at hand, lava-run --validate builds.
func TestJobsGolden(t *testing.T) {
	const base = "https://files.example.com/fsbench/out"
	for _, tc := range []struct {
		name, spec string
		a          arch.Arch
		opt        Options
		vars       []string
		device     string // rendered dictionary for lava-run --validate
	}{
		{name: "qemu", spec: "testdata/lab.fsb.hcl", a: arch.X86_64, device: "testdata/devices/qemu.yaml"},
		{name: "beaglebone-black", spec: "testdata/bbb.fsb.hcl", a: arch.ARM, device: "testdata/devices/beaglebone-black.yaml"},
		{name: "matrix", spec: "testdata/lab.fsb.hcl", a: arch.X86_64, opt: Options{Repeat: 2, Tags: []string{"lab-a"}, Priority: "low"},
			vars: []string{`filesystems=["ext4","btrfs"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTools(t, tc.a)
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			dir := t.TempDir()
			vs := build(t, ctx, tc.spec, filepath.Join(dir, "out"), tc.opt.Boot, tc.vars...)
			opt := tc.opt
			opt.Artifacts, opt.Version = base, "test"
			paths := writeJobs(t, vs, opt, dir)
			checkSchema(t, paths...)
			var all []byte
			for _, p := range paths {
				b, _ := os.ReadFile(p)
				all = append(append(all, "--- "+filepath.Base(p)+"\n"...), masked(b)...)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tc.name+".yaml"), all, *update)
			if tc.device == "" {
				return
			}
			if _, err := os.Stat(LAVARun); err != nil {
				testenv.Missing(t, "Debian's lava-dispatcher for lava-run --validate")
			}
			// The dispatcher checks that the files are there: the same
			// jobs, with the artifacts on this host.
			opt.Artifacts = "file://" + filepath.Join(dir, "out")
			local := t.TempDir()
			for _, p := range writeJobs(t, vs, opt, local) {
				if err := ValidateDispatcher(ctx, p, tc.device, t.TempDir()); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// What a lab cannot run is refused with the reason, before any job is
// written.
func TestJobsRefused(t *testing.T) {
	needTools(t, arch.X86_64)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	vs := build(t, ctx, "testdata/lab.fsb.hcl", filepath.Join(dir, "out"), "")
	v := vs[0]
	for _, tc := range []struct {
		name string
		v    Variant
		opt  Options
		want string
	}{
		{"no artifacts", v, Options{}, "-artifacts"},
		{"artifacts query", v, Options{Artifacts: "https://x.example/out?token=1"}, "query"},
		{"artifacts scheme", v, Options{Artifacts: "ftp://x.example/out"}, "want http://, https:// or file://"},
		{"board type without boot files", v, Options{Artifacts: "https://x.example/out", DeviceType: "rpi4-b"}, "has no boot block"},
		{"device type name", v, Options{Artifacts: "https://x.example/out", DeviceType: "qemu\nvisibility: personal"}, "is not a LAVA device type"},
		{"tag name", v, Options{Artifacts: "https://x.example/out", Tags: []string{"a: b"}}, "is not a LAVA device type or tag"},
		{"riscv64 on qemu", withArch(v, arch.RISCV64), Options{Artifacts: "https://x.example/out"}, "runs x86_64, aarch64 and arm boards"},
		{"storage on qemu", withStorage(v, "sda"), Options{Artifacts: "https://x.example/out"}, "names its storage sda"},
		{"uboot without boot block", v, Options{Artifacts: "https://x.example/out", Boot: BootUBoot}, "no boot block"},
		{"accelerator", v, Options{Artifacts: "https://x.example/out", Accel: "hvf"}, "want tcg or kvm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Jobs(tc.v, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Jobs: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func withArch(v Variant, a arch.Arch) Variant {
	v.Board.Arch = a
	return v
}

func withStorage(v Variant, s string) Variant {
	v.Board.Storage = s
	return v
}

// The schema check itself refuses a job LAVA would refuse, and says
// where.
func TestValidateSchemaRefuses(t *testing.T) {
	if err := exec.Command(Python, "-c", "import lava_common.schemas").Run(); err != nil {
		testenv.Missing(t, "Debian's lava-common")
	}
	dir := t.TempDir()
	good := &Definition{DeviceType: "qemu", JobName: "x", Timeouts: Timeouts{Job: Timeout{10}, Action: Timeout{5}, Connection: Timeout{5}},
		Priority: "medium", Visibility: "public", Metadata: map[string]string{"a": "b"},
		Actions: []Action{{Test: &Test{Timeout: Timeout{5}, Monitors: []Monitor{{Name: "fsbench", Start: "a", End: "b", Pattern: "c"}}}}}}
	bad := *good
	bad.Timeouts.Action = Timeout{20} // longer than the job
	badName := *good
	badName.Actions = []Action{{Test: &Test{Timeout: Timeout{5}, Monitors: []Monitor{{Name: "two words", Start: "a", End: "b", Pattern: "c"}}}}}
	var paths []string
	for i, d := range []*Definition{good, &bad, &badName} {
		b, err := d.YAML("")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, string(rune('a'+i))+".yaml")
		os.WriteFile(p, b, 0o644)
		paths = append(paths, p)
	}
	errs, err := ValidateSchema(context.Background(), paths...)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 2 || errs[0].File != paths[1] || errs[1].File != paths[2] {
		t.Fatalf("ValidateSchema = %v, want the second and third jobs refused", errs)
	}
	if !strings.Contains(errs[0].String(), "timeout") || !strings.Contains(errs[1].String(), "monitors") {
		t.Errorf("the errors do not say where: %s; %s", errs[0], errs[1])
	}
}

// TestLAVARunQEMU is the whole loop on a lab: the job of a qemu device
// runs under Debian's lava-dispatcher (lava-run, TCG) with the rendered
// qemu device dictionary, the runner's results come back out of the
// job's log with the job and device in their context, and the report
// names the LAVA device.
func TestLAVARunQEMU(t *testing.T) {
	needTools(t, arch.X86_64, "qemu-system-x86_64")
	if _, err := os.Stat(LAVARun); err != nil {
		testenv.Missing(t, "Debian's lava-dispatcher")
	}
	if testing.Short() {
		t.Skip("boots a VM under lava-run")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	vs := build(t, ctx, "testdata/lab.fsb.hcl", out, "")
	paths := writeJobs(t, vs, Options{Artifacts: "file://" + out, Version: "test"}, dir)
	checkSchema(t, paths...)
	// A job id of its own: lava-run works in /var/lib/lava/dispatcher/tmp/<id>.
	id := strconv.Itoa(100000 + os.Getpid()%800000)
	cmd := exec.CommandContext(ctx, Python, LAVARun, "--job-id", id, "--output-dir", filepath.Join(dir, "lava-run"),
		"--device", "testdata/devices/qemu.yaml", paths[0])
	var log bytes.Buffer
	cmd.Stderr = &log // lava-run logs on its standard error
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("lava-run: %s", time.Since(start).Round(time.Second))
	entries, err := ReadLog(bytes.NewReader(log.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatalf("lava-run: %v: %s", runErr, Failure(entries))
	}
	if f := Failure(entries); f != "" {
		t.Errorf("the job passed, and Failure says %q", f)
	}
	store, err := console.OpenStore(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Convert(ctx, Run{JobID: id, Device: "qemu-test-01", DeviceType: "qemu", Entries: entries}, ConvertOptions{Store: store})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, r := range sum.Results {
		counts[r.Recipe]++
		if r.Attrs["lava_job_id"] != id || r.Attrs["lava_device"] != "qemu-test-01" || r.Attrs["target"] != "lava" {
			t.Errorf("%s %s/%s: attrs %v, want the job and its device", r.Recipe, r.Name, r.Case, r.Attrs)
		}
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s %s/%s: %s: %s", r.Recipe, r.Name, r.Case, r.Status, r.Error)
		}
	}
	if counts["boot_time"] != 2 || counts["fio"] != 2 {
		t.Errorf("results per recipe %v, want 2 boot_time and 2 fio", counts)
	}
	// LAVA's own test cases, from the runner's signals, name the same.
	cases := 0
	for _, e := range entries {
		if e.Level == "results" && e.Fields["definition"] == "fsbench" && e.Fields["result"] == "pass" {
			cases++
		}
	}
	if cases != len(sum.Results) { // the plan's closing result included
		t.Errorf("LAVA recorded %d passing fsbench test cases, want %d", cases, len(sum.Results))
	}
	ins, err := report.Load([]string{filepath.Join(dir, "results.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	md := report.Build(ins, report.Options{}).Markdown()
	if !strings.Contains(md, "| LAVA device | qemu-test-01 |") || !strings.Contains(md, "| target | lava |") {
		t.Errorf("the report's context does not name the LAVA device:\n%.3000s", md)
	}
}

// A plan whose power cuts come from fsbench's host is refused for a lab.
func TestRunsOnLAVARefusesHostCuts(t *testing.T) {
	for _, tc := range []struct {
		params runplan.Params
		want   string
	}{
		{runplan.Params{"trigger": "host_kill"}, `trigger = "host_kill"`},
		{runplan.Params{"interrupt_after": json.Number("5")}, "interrupt_after = 5"},
	} {
		p := &runplan.Plan{Steps: []runplan.Step{{Recipe: "r", Test: "t", Case: "c", Params: tc.params}}}
		if err := runsOnLAVA("v", p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.params, err, tc.want)
		}
	}
	ok := &runplan.Plan{Steps: []runplan.Step{{Params: runplan.Params{"trigger": "watchdog", "interrupt_after": int64(0)}}}}
	if err := runsOnLAVA("v", ok); err != nil {
		t.Errorf("a plan a lab can run: %v", err)
	}
}
