package fio

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Job is one fio job, as the spec's fio test case gives it. Zero values mean
// what they mean to fio, except where noted; the recipe fills in defaults.
type Job struct {
	Name    string // the case name, e.g. "randread-4MiB-direct"; also fio's job name and file name prefix
	Dir     string // directory of the job's files; created if missing; the files are removed at the end
	RW      string // read, write, randread, randwrite, rw, randrw
	BS      int64  // block size in bytes
	Direct  bool   // O_DIRECT
	Size    int64  // bytes per job, shared among NrFiles files (fio's size)
	NrFiles int    // files per job; 0 means 1
	NumJobs int    // clones of the job, each with its own files; 0 means 1

	IOEngine string // libaio, psync, sync; "" means psync (fio's default on Linux)
	IODepth  int    // I/Os in flight (libaio); 0 means 1

	// RWMixRead is the percentage of reads of rw and randrw, taken as given:
	// 0 means no reads (fio's default, 50, is the recipe's to fill in).
	RWMixRead int

	Runtime   time.Duration // stop after this long; 0: when the I/O is done
	TimeBased bool          // keep going over the files until Runtime
	RampTime  time.Duration // run this long before measuring
	Fsync     int           // fsync after every Fsync writes; 0 never
	EndFsync  bool          // fsync every file at the end of the job
	IOSize    int64         // bytes of I/O per job; 0: Size (larger loops over the files)

	// KthreadCPU also records the CPU time of kernel threads (ppid 2) over
	// the measured run, from /proc/[pid]/stat.
	KthreadCPU bool
}

// The access patterns fio calls rw=.
const (
	RWRead      = "read"
	RWWrite     = "write"
	RWRandRead  = "randread"
	RWRandWrite = "randwrite"
	RWMixed     = "rw"
	RWRandMixed = "randrw"
)

// The ioengines both engines implement.
const (
	IOEngineLibaio = "libaio"
	IOEnginePsync  = "psync"
	IOEngineSync   = "sync"
)

func (j *Job) reads() bool  { return j.RW != RWWrite && j.RW != RWRandWrite }
func (j *Job) writes() bool { return j.RW != RWRead && j.RW != RWRandRead }
func (j *Job) random() bool { return strings.HasPrefix(j.RW, "rand") }
func (j *Job) mixed() bool  { return j.RW == RWMixed || j.RW == RWRandMixed }

// normalized returns the job with fio's defaults for the zero values that
// have one, and checks it. Errors name the field as the spec spells it.
func (j Job) normalized() (Job, error) {
	if j.NrFiles == 0 {
		j.NrFiles = 1
	}
	if j.NumJobs == 0 {
		j.NumJobs = 1
	}
	if j.IODepth == 0 {
		j.IODepth = 1
	}
	if j.IOEngine == "" {
		j.IOEngine = IOEnginePsync
	}
	if err := j.check(); err != nil {
		return j, fmt.Errorf("fio job %q: %w", j.Name, err)
	}
	return j, nil
}

func (j *Job) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case j.Name == "":
		bad("empty name")
	case strings.ContainsAny(j.Name, "/\x00") || j.Name == "." || j.Name == "..":
		bad("name %q cannot be part of a file name", j.Name)
	}
	switch {
	case j.Dir == "":
		bad("no directory")
	case strings.ContainsRune(j.Dir, 0):
		bad("directory %q contains a NUL byte", j.Dir)
	}
	switch j.RW {
	case RWRead, RWWrite, RWRandRead, RWRandWrite, RWMixed, RWRandMixed:
	default:
		bad("rw %q is not one of read, write, randread, randwrite, rw, randrw", j.RW)
	}
	switch j.IOEngine {
	case IOEngineLibaio, IOEnginePsync, IOEngineSync:
	default:
		bad("ioengine %q is not one of libaio, psync, sync", j.IOEngine)
	}
	if j.BS <= 0 {
		bad("bs %d is not positive", j.BS)
	} else if j.Direct && j.BS%512 != 0 {
		bad("bs %d is not a multiple of 512, which direct I/O needs", j.BS)
	}
	if j.Size <= 0 {
		bad("size %d is not positive", j.Size)
	}
	if j.NrFiles < 0 || j.NumJobs < 0 || j.IODepth < 0 || j.Fsync < 0 || j.IOSize < 0 {
		bad("nrfiles, numjobs, iodepth, fsync and io_size cannot be negative")
	}
	if j.RWMixRead < 0 || j.RWMixRead > 100 {
		bad("rwmixread %d is not a percentage", j.RWMixRead)
	}
	if j.Runtime < 0 || j.RampTime < 0 {
		bad("runtime and ramp_time cannot be negative")
	}
	if j.TimeBased && j.Runtime == 0 {
		bad("time_based needs a runtime")
	}
	if len(errs) == 0 && j.BS > 0 && j.Size > 0 && j.NrFiles > 0 {
		if blocks := totalBlocks(j.fileSizes(), j.BS); blocks == 0 {
			bad("each of the %d files gets %d bytes, less than bs %d: fio would do no I/O",
				j.NrFiles, j.Size/int64(j.NrFiles), j.BS)
		}
	}
	return errors.Join(errs...)
}

// fileSizes gives the size of each of a job's files the way fio's
// setup_files does: size/nrfiles each, and when that leaves whole blocks
// over, one more block for each of the first files. The sizes need not be
// multiples of bs; only whole blocks are ever read or written.
func (j *Job) fileSizes() []int64 {
	n := int64(j.NrFiles)
	fs := j.Size / n
	extra := (j.Size - fs*n) / j.BS
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = fs
		if extra > 0 {
			sizes[i] += j.BS
			extra--
		}
	}
	return sizes
}

func totalBlocks(sizes []int64, bs int64) int64 {
	var n int64
	for _, s := range sizes {
		n += s / bs
	}
	return n
}

// filePath names file filenum of job clone jobnum as fio's default
// filename_format does: $jobname.$jobnum.$filenum.
func (j *Job) filePath(jobnum, filenum int) string {
	return filepath.Join(j.Dir, fmt.Sprintf("%s.%d.%d", j.Name, jobnum, filenum))
}

// Options choose the engine and how caches are dropped.
type Options struct {
	// Engine is "auto" (or ""): fio when found in PATH, else the built-in
	// engine; "fio"; or "builtin". A fio that is found but lacks the job's
	// ioengine is an error, never a silent switch of engines.
	Engine string
	// FioPath is the fio binary; "" looks for "fio" in PATH. When it is
	// given, a missing fio is an error even with Engine "auto".
	FioPath string
	// DropCaches empties the page cache before the measured part of a
	// buffered run; nil syncs and writes 3 to /proc/sys/vm/drop_caches,
	// which needs root (the runner is root on its target).
	DropCaches func() error
	// KeepFiles leaves the job's files in place at the end, so that a
	// later run of the same job finds them laid out (fio's own files
	// are left too, with unlink=0); by default they are removed.
	KeepFiles bool
}

// The engines Options.Engine names and Result.Engine reports.
const (
	EngineAuto    = "auto"
	EngineFio     = "fio"
	EngineBuiltin = "builtin"
)

// BuiltinVersion is the built-in engine's Result.Version: the fio release
// whose semantics it follows, and its own revision.
const BuiltinVersion = "fsbench-builtin-1 (fio-3.33 semantics)"
