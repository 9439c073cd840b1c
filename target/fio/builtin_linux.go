package fio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// builtin is the engine for images without fio.
type builtin struct {
	job   *Job
	hooks hooks
}

func newBuiltin(j *Job, h hooks) engine { return &builtin{job: j, hooks: h} }

// layout creates every clone's files, one after the other, before any
// clone starts (fio's create_serialize).
func (b *builtin) layout(ctx context.Context) error {
	j := b.job
	var buf *ioBuffers
	if j.reads() {
		var err error
		if buf, err = newIOBuffers(1, j.BS); err != nil {
			return err
		}
		defer buf.free()
	}
	random := seedFor(j.Name, -1)
	for jobnum := range j.NumJobs {
		for i, size := range j.fileSizes() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if random, err = layoutFile(j, j.filePath(jobnum, i), size, buf, random); err != nil {
				return err
			}
		}
	}
	return nil
}

// run starts every clone on a thread of its own once all have their files
// open, and sums up their results as fio's group_reporting does.
func (b *builtin) run(ctx context.Context) (*Result, error) {
	j := b.job
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	base := time.Now()
	start := make(chan struct{})
	ready := make(chan error, j.NumJobs)
	stats := make([]*jobStats, j.NumJobs)
	errs := make([]error, j.NumJobs)
	var wg sync.WaitGroup
	for num := range j.NumJobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[num], errs[num] = b.clone(num, base, &stop, ready, start)
			if errs[num] != nil {
				stop.Store(true) // the job failed: the other clones stop too
			}
		}()
	}
	var setupErr error
	for range j.NumJobs {
		setupErr = errors.Join(setupErr, <-ready)
	}
	if setupErr != nil {
		stop.Store(true)
	}
	close(start)
	wg.Wait()
	if setupErr != nil {
		return nil, setupErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return b.result(stats), nil
}

// clone runs clone num of the job on a locked OS thread, which is never
// unlocked: it ends with the goroutine.
func (b *builtin) clone(num int, base time.Time, stop *atomic.Bool, ready chan<- error, start <-chan struct{}) (*jobStats, error) {
	runtime.LockOSThread()
	w, err := newWorker(b.job, num, base, stop, b.hooks)
	ready <- err
	if err != nil {
		return nil, err
	}
	defer w.close()
	<-start
	if stop.Load() {
		return nil, nil
	}
	if err := w.run(); err != nil {
		if errors.Is(err, errStopped) {
			return nil, nil
		}
		return nil, err
	}
	return &w.stats, nil
}

// jobStats is what one clone measured, fio's thread_stat.
type jobStats struct {
	bytes, ios      [2]int64
	slat, clat, lat [2]latStat
	syncIOs         int64
	sync            latStat
	elapsedNS       int64 // time the passes took after ramp_time
	totalRunMS      int64
	usrMS, sysMS    int64
	ctx             int64
}

func newJobStats() jobStats {
	st := jobStats{sync: newLatStat(true)}
	for d := range 2 {
		st.slat[d], st.clat[d], st.lat[d] = newLatStat(false), newLatStat(true), newLatStat(false)
	}
	return st
}

// result sums the clones' stats the way fio's group_reporting does: bytes,
// I/Os and CPU times add up, the runtime is the longest, the latency
// statistics merge.
func (b *builtin) result(stats []*jobStats) *Result {
	sum := newJobStats()
	var runtimeMS [2]int64
	for _, st := range stats {
		for d := range 2 {
			sum.bytes[d] += st.bytes[d]
			sum.ios[d] += st.ios[d]
			sum.slat[d].merge(&st.slat[d])
			sum.clat[d].merge(&st.clat[d])
			sum.lat[d].merge(&st.lat[d])
			if st.bytes[d] > 0 {
				// fio's update_runtime: whole milliseconds, rounded up.
				runtimeMS[d] = max(runtimeMS[d], (st.elapsedNS/1e3+999)/1000)
			}
		}
		sum.syncIOs += st.syncIOs
		sum.sync.merge(&st.sync)
		sum.totalRunMS += st.totalRunMS
		sum.usrMS += st.usrMS
		sum.sysMS += st.sysMS
		sum.ctx += st.ctx
	}
	r := &Result{
		Engine:   EngineBuiltin,
		Version:  BuiltinVersion,
		IOEngine: b.job.IOEngine,
		Sync:     SyncSide{IOs: sum.syncIOs, Lat: sum.sync.latency()},
		Ctx:      sum.ctx,
	}
	for d, side := range []*Side{&r.Read, &r.Write} {
		*side = Side{
			Bytes:     sum.bytes[d],
			IOs:       sum.ios[d],
			RuntimeMS: runtimeMS[d],
			Slat:      sum.slat[d].latency(),
			Clat:      sum.clat[d].latency(),
			Lat:       sum.lat[d].latency(),
		}
		if rt := runtimeMS[d]; rt > 0 {
			side.BW = 1000 * sum.bytes[d] / rt / 1024
			side.IOPS = 1000 * float64(sum.ios[d]) / float64(rt)
		}
	}
	if sum.totalRunMS > 0 {
		r.UsrCPU = float64(sum.usrMS) * 100 / float64(sum.totalRunMS)
		r.SysCPU = float64(sum.sysMS) * 100 / float64(sum.totalRunMS)
	}
	return r
}

// dropCaches writes dirty data out and empties the page cache, dentries
// and inodes, as `sync; echo 3 > /proc/sys/vm/drop_caches` does.
func dropCaches() error {
	unix.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0)
}

// layoutFile is fio's extend_file for a file that is missing or too small:
// it is created again and allocated (fallocate, as fio's default
// fallocate=native; a filesystem without it is no error). A job that reads
// also writes it in full, in blocks of bs with random data, fsyncs it
// (create_fsync) and drops it from the cache. random is the state of the
// data's generator, returned advanced.
func layoutFile(j *Job, path string, size int64, buf *ioBuffers, random uint64) (uint64, error) {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() >= size {
		return random, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return random, err
	}
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC
	if j.reads() {
		flags |= unix.O_TRUNC
	}
	fd, err := unix.Open(path, flags, 0o644)
	if err != nil {
		return random, fmt.Errorf("create %s: %w", path, err)
	}
	defer unix.Close(fd)
	unix.Fallocate(fd, 0, 0, size)
	if !j.reads() {
		return random, nil
	}
	if err := unix.Ftruncate(fd, size); err != nil {
		return random, fmt.Errorf("truncate %s: %w", path, err)
	}
	b := buf.block(0)
	for left := size; left > 0; {
		chunk := b[:min(int64(len(b)), left)]
		random = fillRandom(chunk, random)
		n, err := unix.Write(fd, chunk)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return random, fmt.Errorf("write %s: %w", path, err)
		}
		left -= int64(n)
	}
	if err := unix.Fsync(fd); err != nil {
		return random, fmt.Errorf("fsync %s: %w", path, err)
	}
	unix.Fadvise(fd, 0, size, unix.FADV_DONTNEED)
	return random, nil
}
