package runner

import (
	"context"
	"os"

	"github.com/fsbench/fsbench/target/fio"
)

func init() {
	register("fio", Recipe{Schema: 1, Iterate: fioCase})
}

// fioCase runs one case of a fio test in a work directory of its
// partition: real fio when the image has it, the built-in engine
// otherwise. The result says which (attrs engine and engine_version).
func fioCase(ctx context.Context, e *Env, iter int) (*Outcome, error) {
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
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	e.Quiesce()
	job.Dir = dir
	res, err := fio.Run(ctx, job, fio.Options{Engine: fio.EngineAuto})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Metrics: res.Metrics()}
	out.attr("engine", res.Engine)
	out.attr("engine_version", res.Version)
	out.attr("ioengine", res.IOEngine)
	return out, nil
}
