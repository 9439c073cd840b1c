package driver

import (
	"context"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// vmSlots bounds the VMs (and the image builds before them) that the
// package's tests run at once, across tests: the QEMU tests run in
// parallel, so that one test's last VM does not leave the other CPUs idle,
// and TCG wants a CPU per VM.
var vmSlots = NewSlots(max(2, runtime.NumCPU()))

// testLog is a logger that shows progress with -v only.
func testLog() *logrus.Logger {
	log := logrus.New()
	log.Out = io.Discard
	if testing.Verbose() {
		log.Out = os.Stderr
		log.Level = logrus.InfoLevel
	}
	return log
}

// loadSpec loads and seals a spec for a job.
func loadSpec(t *testing.T, path string, vars ...string) (*spec.Spec, *plan.Plan) {
	t.Helper()
	s, p, diags := plan.LoadSealed(path, spec.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s, p
}

// testJob is the job `fsbench run` would make of p, with the runner built
// from this module for the host, the tests' package cache and the
// package's VM slots.
func testJob(t *testing.T, s *spec.Spec, p *plan.Plan, out string) Job {
	return Job{Plan: p, SpecDir: s.Dir, OutDir: out, Epoch: 315532800, Runner: testbin.Runner(t, ""),
		CacheDir: testbin.CacheDir(), BuildJobs: 1, Parallel: len(p.Variants), Slots: vmSlots, Log: testLog(),
		QEMU: QEMU{Accel: "auto", Disk: "virtio", MemoryMiB: 512, CPUs: 1}}
}

// runJob runs job and fails t for a variant that did not complete; it
// returns each variant's outcome by name.
func runJob(t *testing.T, ctx context.Context, job Job) map[string]*Outcome {
	t.Helper()
	out := map[string]*Outcome{}
	for _, r := range Run(ctx, job) {
		if r.Err != nil {
			t.Errorf("variant %s: %v (console: %s)", r.Variant, r.Err, tail(r.Outcome))
			continue
		}
		out[r.Variant] = r.Outcome
	}
	return out
}
