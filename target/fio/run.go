package fio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"
)

// ErrNoDirectIO means the job's files could not be opened or read with
// O_DIRECT: the filesystem does not support it (tmpfs before Linux 6.6,
// some FUSE and network filesystems), or bs is below the device's logical
// block size.
var ErrNoDirectIO = errors.New("direct I/O (O_DIRECT) refused: unsupported by the filesystem, or bs below the device's logical block size")

// Run runs job with the engine opt chooses and returns what it measured.
// Both engines go through the same steps: lay out the files (untimed), drop
// the page cache when the job is buffered, run the measured part, remove
// the files. Cancelling ctx stops the job.
func Run(ctx context.Context, job Job, opt Options) (*Result, error) {
	return run(ctx, job, opt, hooks{})
}

// engine is fio or the built-in engine.
type engine interface {
	layout(ctx context.Context) error
	run(ctx context.Context) (*Result, error)
}

// hooks let tests watch a run; nil members are skipped.
type hooks struct {
	laidOut func()          // after the layout, before the measured run
	issued  func(e ioEvent) // every I/O and fsync the built-in engine issues, from the clone's goroutine
}

// op is what one I/O does; reads and writes index per-direction arrays.
type op uint8

const (
	opRead op = iota
	opWrite
	opSync
)

func (o op) String() string { return [...]string{"read", "write", "sync"}[o] }

// ioEvent is one I/O or fsync as a job clone issues it.
type ioEvent struct {
	job, file int
	op        op
	offset    int64 // bytes
	pass      int   // passes over the files, from 0
	inflight  int   // I/Os in flight once this one is submitted
	endFsync  bool  // the fsync of end_fsync
}

func run(ctx context.Context, job Job, opt Options, h hooks) (res *Result, err error) {
	j, err := job.normalized()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("fio job %q: %w", j.Name, err)
	}
	eng, err := newEngine(ctx, &j, opt, h)
	if err != nil {
		return nil, fmt.Errorf("fio job %q: %w", j.Name, err)
	}
	defer func() {
		if opt.KeepFiles && err == nil {
			return
		}
		if rmErr := removeFiles(&j); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("fio job %q: %w", j.Name, rmErr))
		}
	}()
	if err := eng.layout(ctx); err != nil {
		return nil, fmt.Errorf("fio job %q: laying out files: %w", j.Name, err)
	}
	if h.laidOut != nil {
		h.laidOut()
	}
	if !j.Direct {
		drop := opt.DropCaches
		if drop == nil {
			drop = dropCaches
		}
		if err := drop(); err != nil {
			return nil, fmt.Errorf("fio job %q: dropping the page cache: %w", j.Name, err)
		}
	}
	var before kthreadTimes
	start := time.Now()
	if j.KthreadCPU {
		if before, err = readKthreads("/proc"); err != nil {
			return nil, fmt.Errorf("fio job %q: %w", j.Name, err)
		}
	}
	res, err = eng.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("fio job %q: %w", j.Name, err)
	}
	if j.KthreadCPU {
		after, err := readKthreads("/proc")
		if err != nil {
			return nil, fmt.Errorf("fio job %q: %w", j.Name, err)
		}
		res.Kthreads = kthreadDelta(before, after, time.Since(start))
	}
	return res, nil
}

func newEngine(ctx context.Context, j *Job, opt Options, h hooks) (engine, error) {
	switch opt.Engine {
	case "", EngineAuto, EngineFio:
		path, err := findFio(opt.FioPath)
		if err == nil {
			return newRealFio(ctx, path, j)
		}
		if opt.Engine == EngineFio || opt.FioPath != "" {
			return nil, err
		}
		return newBuiltin(j, h), nil
	case EngineBuiltin:
		return newBuiltin(j, h), nil
	}
	return nil, fmt.Errorf("engine %q is not one of auto, fio, builtin", opt.Engine)
}

func findFio(path string) (string, error) {
	if path == "" {
		path = "fio"
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("no fio: %w", err)
	}
	return p, nil
}

// removeFiles removes the files of every clone of j; those that are not
// there (a failed layout) are no error.
func removeFiles(j *Job) error {
	var errs []error
	for jobnum := range j.NumJobs {
		for filenum := range j.NrFiles {
			err := os.Remove(j.filePath(jobnum, filenum))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
