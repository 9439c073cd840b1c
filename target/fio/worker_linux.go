package fio

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// jobFile is one of a clone's files while it runs: fio's fio_file.
type jobFile struct {
	num    int
	path   string
	fd     int
	size   int64    // bytes; only whole blocks are used
	blocks int64    // size / bs
	pos    [2]int64 // next sequential offset, per direction (fio's last_pos)
	fdPos  int64    // the descriptor's offset, for ioengine=sync
	order  blockOrder
	used   int64 // blocks of order taken in this pass over the file
	resets int   // passes over the file, for the order's seed
	done   bool
}

// worker runs one clone of a job: fio's thread_main and do_io. It runs on
// one locked OS thread, so that RUSAGE_THREAD counts its I/O and nothing
// else.
type worker struct {
	job   *Job
	num   int
	base  time.Time
	stop  *atomic.Bool
	hooks hooks

	files     []*jobFile
	nextFile  int // round robin, fio's next_file
	doneFiles int
	pass      int

	eng   ioEngine
	bufs  *ioBuffers
	units []unit
	free  []*unit

	mix         mixRand
	rwmixDir    op
	rwmixIssues uint64
	issues      [2]uint64 // fio's io_issues: reset after ramp_time
	lastWasSync bool
	issuedTotal int64 // fio's io_issue_bytes: bytes issued over all passes
	passIssued  int64 // bytes issued in this pass
	sizeTotal   int64 // fio's size once files are set up: the files' sizes
	issueLimit  int64 // io_size, or sizeTotal
	rampOver    bool
	terminate   bool
	epoch       int64 // ns; the start of the measured run (after ramp_time)
	passStart   int64 // ns; the start of this pass, or the end of ramp_time
	ru0         unix.Rusage
	stats       jobStats
}

// newWorker opens the clone's files and sets up its engine and buffers.
func newWorker(j *Job, num int, base time.Time, stop *atomic.Bool, h hooks) (w *worker, err error) {
	w = &worker{
		job: j, num: num, base: base, stop: stop, hooks: h,
		mix:   newMixRand(seedFor(j.Name, num, -1)),
		stats: newJobStats(),
	}
	defer func() {
		if err != nil {
			w.close()
			w = nil
		}
	}()
	flags := unix.O_RDONLY
	if j.writes() {
		flags = unix.O_RDWR | unix.O_CREAT
	}
	if j.Direct {
		flags |= unix.O_DIRECT
	}
	for i, size := range j.fileSizes() {
		path := j.filePath(num, i)
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o644)
		if err != nil {
			if err == unix.EINVAL && j.Direct {
				return nil, fmt.Errorf("%s: %w", path, ErrNoDirectIO)
			}
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
		w.files = append(w.files, &jobFile{num: i, path: path, fd: fd, size: size, blocks: size / j.BS})
		w.sizeTotal += size
	}
	w.issueLimit = w.sizeTotal
	if j.IOSize > 0 {
		w.issueLimit = j.IOSize
	}
	depth := 1
	switch j.IOEngine {
	case IOEngineLibaio:
		depth = j.IODepth
		if w.eng, err = newAIOEngine(depth); err != nil {
			return nil, err
		}
	case IOEngineSync:
		w.eng = &syncEngine{}
	default:
		w.eng = &syncEngine{positional: true}
	}
	if w.bufs, err = newIOBuffers(depth, j.BS); err != nil {
		return nil, err
	}
	w.units = make([]unit, depth)
	random := seedFor(j.Name, num, -2)
	for i := range w.units {
		u := &w.units[i]
		u.slot, u.buf = i, w.bufs.block(i)
		if j.writes() {
			random = fillRandom(u.buf, random)
		}
		w.free = append(w.free, u)
	}
	return w, nil
}

func (w *worker) now() int64 { return int64(time.Since(w.base)) }

// run is fio's thread_main loop: passes over the files until the job is
// done, then the run time and CPU use.
func (w *worker) run() error {
	w.epoch = w.now()
	w.ru0 = threadRusage()
	for {
		w.passStart = w.now()
		w.startPass()
		err := w.doPass()
		w.stats.elapsedNS += w.now() - w.passStart
		if err != nil {
			return err
		}
		if !w.anotherPass() {
			break
		}
		w.pass++
	}
	w.stats.totalRunMS = (w.now() - w.epoch) / 1e6
	ru := threadRusage()
	w.stats.usrMS = msSince(w.ru0.Utime, ru.Utime)
	w.stats.sysMS = msSince(w.ru0.Stime, ru.Stime)
	w.stats.ctx = int64(ru.Nvcsw+ru.Nivcsw) - int64(w.ru0.Nvcsw+w.ru0.Nivcsw)
	return nil
}

// startPass is fio's clear_io_state and reopening of the files: counters
// that last one pass are reset, every file starts over, and its cached
// pages are dropped (fio's invalidate=1).
func (w *worker) startPass() {
	w.passIssued = 0
	w.lastWasSync = false
	w.rwmixIssues = 0
	w.doneFiles = 0
	for _, f := range w.files {
		f.done = false
		w.resetFile(f)
		unix.Fadvise(f.fd, 0, f.size, unix.FADV_DONTNEED)
	}
}

// resetFile starts a new pass over f: sequential positions back to 0 and a
// fresh random order (fio's fio_file_reset).
func (w *worker) resetFile(f *jobFile) {
	f.pos = [2]int64{}
	f.used = 0
	f.order = newBlockOrder(uint64(f.blocks), seedFor(w.job.Name, w.num, f.num, f.resets))
	f.resets++
}

// anotherPass is fio's keep_running: time-based jobs loop until their
// runtime, others until io_size (or size) bytes were issued.
func (w *worker) anotherPass() bool {
	switch {
	case w.terminate || w.passIssued == 0 || w.stop.Load():
		return false
	case w.job.TimeBased:
		return true
	case w.issuedTotal >= w.issueLimit || w.issueLimit-w.issuedTotal < w.job.BS:
		return false
	case w.job.IOSize == 0 && w.doneFiles == len(w.files):
		return false
	}
	return true
}

// doPass is fio's do_io: issue I/O until the pass's bytes are issued, every
// file is done, or the runtime is over; then wait for what is in flight and
// run end_fsync.
func (w *worker) doPass() error {
	j := w.job
	for w.issuedTotal < w.issueLimit || j.TimeBased {
		if w.stop.Load() {
			return errStopped
		}
		now := w.now()
		w.checkRamp(now)
		if w.rampOver && j.Runtime > 0 && now-w.epoch >= int64(j.Runtime) {
			w.terminate = true
			break
		}
		if w.passIssued >= w.sizeTotal && !j.TimeBased {
			break
		}
		u := w.free[len(w.free)-1]
		u.start, u.done = now, 0
		if !w.fill(u) {
			break
		}
		if u.op == opSync {
			if err := w.fsync(u.file, false); err != nil {
				return err
			}
			continue
		}
		w.free = w.free[:len(w.free)-1]
		w.issued(u, now)
		if err := w.eng.submit(w, u); err != nil {
			return err
		}
		if len(w.free) == 0 {
			if err := w.eng.reap(w, 1); err != nil {
				return err
			}
		}
	}
	if err := w.eng.reap(w, w.eng.inflight()); err != nil {
		return err
	}
	if j.EndFsync && w.shouldFsync() {
		for _, f := range w.files {
			if err := w.fsync(f, true); err != nil {
				return err
			}
		}
	}
	return nil
}

var errStopped = errors.New("stopped")

// fill is fio's set_io_u_file and fill_io_u: the next file in round-robin
// order that still has a block for the chosen direction, or an fsync.
// It reports false when every file is done.
func (w *worker) fill(u *unit) bool {
	for w.doneFiles < len(w.files) {
		f := w.nextRR()
		u.file = f
		u.op = w.direction()
		if u.op == opSync {
			return true
		}
		if off, ok := w.offset(f, u.op); ok {
			u.offset = off
			return true
		}
		f.done = true
		w.doneFiles++
	}
	return false
}

// nextRR is fio's get_next_file_rr with file_service_type=roundrobin:
// every I/O goes to the next file that is not done.
func (w *worker) nextRR() *jobFile {
	for {
		f := w.files[w.nextFile]
		w.nextFile = (w.nextFile + 1) % len(w.files)
		if !f.done {
			return f
		}
	}
}

func (w *worker) shouldFsync() bool { return !w.lastWasSync && w.job.writes() }

// direction is fio's get_rw_ddir: an fsync once every Fsync writes were
// issued, else the job's direction; rw and randrw stay in one direction for
// a number of I/Os drawn by rwmixread, as fio does.
func (w *worker) direction() op {
	j := w.job
	if j.Fsync > 0 && w.shouldFsync() && w.issues[opWrite] > 0 && w.issues[opWrite]%uint64(j.Fsync) == 0 {
		return opSync
	}
	switch {
	case j.mixed():
		if w.issues[w.rwmixDir] >= w.rwmixIssues {
			d := opWrite
			if w.mix.between(1, 100) <= j.RWMixRead {
				d = opRead
			}
			if d != w.rwmixDir {
				share := [2]uint64{uint64(j.RWMixRead), uint64(100 - j.RWMixRead)}
				w.rwmixIssues = w.issues[w.rwmixDir] * share[d] / 100
			}
			w.rwmixDir = d
		}
		return w.rwmixDir
	case j.reads():
		return opRead
	}
	return opWrite
}

// offset is fio's get_next_offset for one file and direction. Random jobs
// take the next block of the file's order, which visits each block once
// per pass; sequential ones go on from where the direction left off. Only
// whole blocks count. A time-based job starts a file over when it runs out
// (a sequential one only when it has a single file, as in fio).
func (w *worker) offset(f *jobFile, d op) (int64, bool) {
	j := w.job
	if j.random() {
		if f.used == f.blocks {
			if !j.TimeBased || f.blocks == 0 {
				return 0, false
			}
			w.resetFile(f)
			w.loopInvalidate(f)
		}
		b := f.order.at(uint64(f.used))
		f.used++
		return int64(b) * j.BS, true
	}
	if f.pos[d] >= f.size && j.TimeBased && len(w.files) == 1 {
		f.pos[d] = 0
		w.loopInvalidate(f)
	}
	if f.pos[d]+j.BS > f.size {
		return 0, false
	}
	off := f.pos[d]
	f.pos[d] += j.BS
	return off, true
}

// loopInvalidate drops a buffered file's cached pages when a time-based job
// starts it over (fio's loop_cache_invalidate).
func (w *worker) loopInvalidate(f *jobFile) {
	if !w.job.Direct {
		unix.Fadvise(f.fd, 0, f.size, unix.FADV_DONTNEED)
	}
}

// issued counts an I/O as fio's td_io_queue does, before it goes out.
func (w *worker) issued(u *unit, now int64) {
	d := u.op
	w.issues[d]++
	w.stats.ios[d]++
	w.issuedTotal += w.job.BS
	w.passIssued += w.job.BS
	if d == opWrite {
		scramble(u.buf, u.offset, now)
	}
	if w.hooks.issued != nil {
		w.hooks.issued(ioEvent{job: w.num, file: u.file.num, op: d, offset: u.offset, pass: w.pass,
			inflight: w.eng.inflight() + 1})
	}
}

// submitted records the submission latency of an asynchronous I/O.
func (w *worker) submitted(u *unit) {
	if w.rampOver || w.job.RampTime == 0 {
		w.stats.slat[u.op].add(uint64(u.issue - u.start))
	}
}

// complete accounts for a finished read or write (fio's io_completed).
func (w *worker) complete(u *unit, now int64) {
	w.checkRamp(now)
	d := u.op
	w.lastWasSync = false
	w.stats.bytes[d] += u.done
	w.stats.clat[d].add(uint64(now - u.issue))
	w.stats.lat[d].add(uint64(now - u.start))
	w.free = append(w.free, u)
}

// fsync syncs f in the job's thread, as fio does for every engine (libaio
// included: fio does not use AIO fsync). end_fsync's are not counted.
func (w *worker) fsync(f *jobFile, end bool) error {
	if w.hooks.issued != nil {
		w.hooks.issued(ioEvent{job: w.num, file: f.num, op: opSync, pass: w.pass, inflight: w.eng.inflight(), endFsync: end})
	}
	t0 := w.now()
	for {
		err := unix.Fsync(f.fd)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("fsync %s: %w", f.path, err)
		}
		break
	}
	t1 := w.now()
	w.checkRamp(t1)
	w.lastWasSync = true
	if !end {
		w.stats.syncIOs++
		w.stats.sync.add(uint64(t1 - t0))
	}
	return nil
}

// checkRamp ends ramp_time: everything measured so far is forgotten and
// the measured run starts now (fio's ramp_time_over and reset_all_stats).
func (w *worker) checkRamp(now int64) {
	if w.rampOver {
		return
	}
	if w.job.RampTime > 0 && now-w.epoch < int64(w.job.RampTime) {
		return
	}
	w.rampOver = true
	if w.job.RampTime == 0 {
		return
	}
	w.stats = newJobStats()
	w.issues = [2]uint64{}
	w.rwmixIssues = 0
	w.lastWasSync = false
	w.epoch, w.passStart = now, now
	w.ru0 = threadRusage()
}

func (w *worker) ioError(u *unit, err error) error {
	if err == unix.EINVAL && w.job.Direct {
		err = fmt.Errorf("%w: %w", ErrNoDirectIO, err)
	}
	return fmt.Errorf("%s %s at offset %d: %w", u.op, u.file.path, u.offset+u.done, err)
}

// close releases the engine (waiting for I/O in flight), the buffers and
// the files.
func (w *worker) close() {
	if w.eng != nil {
		w.eng.close()
	}
	w.bufs.free()
	for _, f := range w.files {
		if f.fd >= 0 {
			unix.Close(f.fd)
		}
	}
}

// threadRusage is the calling thread's resource use, as fio's
// fio_getrusage reads it.
func threadRusage() unix.Rusage {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		unix.Getrusage(unix.RUSAGE_SELF, &ru)
	}
	return ru
}

// msSince is fio's mtime_since_tv: whole milliseconds between two times.
func msSince(a, b unix.Timeval) int64 {
	return (int64(b.Sec)-int64(a.Sec))*1000 + (int64(b.Usec)-int64(a.Usec))/1000
}
