package runner

import (
	"context"
	"os"

	"github.com/fsbench/fsbench/target/fio"
	"github.com/fsbench/fsbench/target/measure"
	"github.com/fsbench/fsbench/target/step"
)

func init() {
	register("fio", step.Recipe{Schema: 1, Iterate: fioCase, Finish: removeWorkDir})
}

// fioCase runs one case of a fio test in a work directory of its
// partition: real fio when the image has it, the built-in engine
// otherwise. The result says which (attrs engine and engine_version).
// Finish removes the directory.
func fioCase(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	job := fio.Job{
		Name: e.Step.Case, RW: p.String("rw"), BS: p.Int("bs"), Direct: p.Bool("direct"),
		Size: p.Int("size"), NrFiles: int(p.Int("nrfiles")), NumJobs: int(p.Int("numjobs")),
		IOEngine: p.String("ioengine"), IODepth: int(p.Int("iodepth")), RWMixRead: int(p.Int("rwmixread")),
		Runtime: p.OptDuration("runtime"), TimeBased: p.Bool("time_based"), RampTime: p.OptDuration("ramp_time"),
		Fsync: int(p.Int("fsync")), EndFsync: p.Bool("end_fsync"), IOSize: p.OptInt("io_size"),
		KthreadCPU: p.Bool("kthread_cpu"),
	}
	if p.Err != nil {
		return nil, p.Err
	}
	// A job that only reads keeps its laid-out files from one iteration
	// to the next, as fio's loops do (the page cache dropped before each
	// run): the files are the same, and a log-structured filesystem
	// without its cleaner (nilfs2) does not fill up with copies. A job
	// that writes starts from an empty directory every time, so that
	// every iteration writes the same way.
	var dir string
	var err error
	keep := job.RW == fio.RWRead || job.RW == fio.RWRandRead
	if keep {
		dir, err = e.KeptWorkDir()
	} else {
		dir, err = e.WorkDir()
		defer os.RemoveAll(dir)
	}
	if err != nil {
		return nil, err
	}
	e.Quiesce()
	job.Dir = dir
	res, err := fio.Run(ctx, job, fio.Options{Engine: fio.EngineAuto, KeepFiles: keep})
	if err != nil {
		return nil, err
	}
	out := &step.Outcome{Set: measure.Set{Metrics: res.Metrics()}}
	out.Attr("engine", res.Engine)
	out.Attr("engine_version", res.Version)
	out.Attr("ioengine", res.IOEngine)
	if asyncEngines[res.IOEngine] {
		for _, m := range out.Metrics {
			if m.Name == "write_bytes" {
				out.AsyncWriteBytes = int64(m.Value)
			}
		}
	}
	return out, nil
}

// asyncEngines submit their writes without write(2), which the kernel's
// wchar does not count: the write accounting adds fio's own count of them.
var asyncEngines = map[string]bool{"libaio": true, "io_uring": true}
