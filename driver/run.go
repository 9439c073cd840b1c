package driver

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// Job is a run of a spec's variants on one target: each variant is built
// into OutDir/<variant> with the real mkfs tools (package imagegen), then
// booted in QEMU, or flashed onto a board and powered on, and followed
// until its runner reports the plan complete. `fsbench run` is a Job, and
// so are the tests that boot whole specs.
type Job struct {
	Plan *plan.Plan
	// SpecDir is the directory the plan's relative paths count from.
	SpecDir string
	// Variants are the plan's variants to run; nil runs them all.
	Variants []plan.Variant
	// OutDir receives a directory per variant: the build, and its run in
	// run/ (results.jsonl, console.log, console.raw).
	OutDir string
	// Epoch is SOURCE_DATE_EPOCH for the builds.
	Epoch int64
	// Runner is the fsbench-runner binary for the board; "" looks for
	// the one of each variant's architecture (payload.FindRunner).
	// HelperRunner is the host architecture's, for helper boots.
	Runner, HelperRunner string
	// CacheDir keeps Debian packages (kernels, busybox, target tools);
	// "" is imagegen.DefaultCacheDir().
	CacheDir string
	// BuildJobs bounds the filesystems one build makes at once; 0 is one
	// per CPU.
	BuildJobs int
	// QEMU is the target, unless Board is set.
	QEMU QEMU
	// Board, when set, is a real board: its variants run one at a time.
	Board *Board
	// Parallel is how many variants build and run at once; 0 is one.
	Parallel int
	// Slots, when set, is shared by jobs that run side by side (tests):
	// a variant holds one of its slots while it builds and runs.
	Slots Slots
	// Log receives progress; nil discards it.
	Log *logrus.Logger
	// Timeout bounds the run of one variant; 0 derives it from its plan.
	Timeout time.Duration
	// Silence ends a variant whose console stays quiet this long; 0
	// derives it from its plan.
	Silence time.Duration
	// OnResult reports each result as it arrives, from any goroutine.
	OnResult func(variant string, r resultframe.Result)
}

// Slots bounds how many variants run at once across the jobs that share
// it.
type Slots chan struct{}

// NewSlots makes n slots.
func NewSlots(n int) Slots { return make(Slots, max(1, n)) }

// VariantRun is what one variant of a job left.
type VariantRun struct {
	Variant string
	// Outcome is nil when the variant was not built or did not start.
	Outcome *Outcome
	// Err is why the build or the run failed; nil when the plan completed
	// with every result.
	Err error
	// Built is how long the build took; Took, the build and the run,
	// from the moment the variant got its slot.
	Built, Took time.Duration
}

// Run builds and runs the job's variants, Parallel at a time, and returns
// what each left, in the job's order. It returns when every variant is
// done or ctx ends.
func Run(ctx context.Context, job Job) []VariantRun {
	variants := job.Variants
	if variants == nil {
		variants = job.Plan.Variants
	}
	parallel := max(1, job.Parallel)
	if job.Board != nil {
		parallel = 1 // one board runs one image at a time
	}
	local := NewSlots(parallel)
	runs := make([]VariantRun, len(variants))
	var wg sync.WaitGroup
	for i, v := range variants {
		// Slots are taken here, not by the goroutines, so that the
		// variants start in the job's order.
		release, err := take(ctx, local, job.Slots)
		if err != nil {
			runs[i] = VariantRun{Variant: v.Name, Err: err}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			start := time.Now()
			var built time.Duration
			o, err := job.variant(ctx, v, func() { built = time.Since(start) })
			runs[i] = VariantRun{Variant: v.Name, Outcome: o, Err: err, Built: built, Took: time.Since(start)}
		}()
	}
	wg.Wait()
	return runs
}

// take holds a slot of each set given, in order, until the release.
func take(ctx context.Context, sets ...Slots) (func(), error) {
	var held []Slots
	release := func() {
		for _, s := range held {
			<-s
		}
	}
	for _, s := range sets {
		if s == nil {
			continue
		}
		select {
		case s <- struct{}{}:
			held = append(held, s)
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

// variant builds one variant and runs it on the job's target; built is
// called once the build is done.
func (job Job) variant(ctx context.Context, v plan.Variant, built func()) (*Outcome, error) {
	bin, err := payload.FindRunner(job.Runner, v.Board.Arch)
	if err != nil {
		return nil, err
	}
	if _, err := imagegen.Build(ctx, job.Plan, v, imagegen.Options{OutDir: job.OutDir, SpecDir: job.SpecDir,
		Epoch: job.Epoch, Jobs: job.BuildJobs, Log: job.Log, Runner: bin, HelperRunner: job.HelperRunner,
		CacheDir: job.CacheDir}); err != nil {
		return nil, err
	}
	built()
	dv := Variant{Name: v.Name, Dir: filepath.Join(job.OutDir, v.Name), Runner: bin, Bootargs: v.Bootargs}
	opt := Options{Timeout: job.Timeout, Silence: job.Silence, OnResult: job.OnResult}
	if job.Log != nil {
		opt.Log = job.Log
	}
	if job.Board != nil {
		return RunBoard(ctx, dv, *job.Board, opt)
	}
	q := job.QEMU
	if q.KernelCache == "" {
		cache := job.CacheDir
		if cache == "" {
			cache = imagegen.DefaultCacheDir()
		}
		q.KernelCache = filepath.Join(cache, "kernels")
	}
	return RunQEMU(ctx, dv, q, opt)
}
