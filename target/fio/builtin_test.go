//go:build linux

package fio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// recorder collects what the built-in engine issues, per clone, and checks
// the files once they are laid out.
type recorder struct {
	t       *testing.T
	job     Job
	mu      sync.Mutex
	events  [][]ioEvent
	drops   int
	laidOut bool
}

func newRecorder(t *testing.T, j Job) *recorder {
	n, _ := j.normalized()
	return &recorder{t: t, job: n, events: make([][]ioEvent, max(1, j.NumJobs))}
}

func (r *recorder) hooks() hooks {
	return hooks{
		issued: func(e ioEvent) {
			r.mu.Lock()
			r.events[e.job] = append(r.events[e.job], e)
			r.mu.Unlock()
		},
		laidOut: func() {
			r.laidOut = true
			checkLayout(r.t, &r.job)
		},
	}
}

// checkLayout checks that every clone's files exist with fio's sizes.
func checkLayout(t *testing.T, j *Job) {
	t.Helper()
	sizes := j.fileSizes()
	for jobnum := range j.NumJobs {
		for i, want := range sizes {
			st, err := os.Stat(j.filePath(jobnum, i))
			if err != nil {
				t.Errorf("after layout: %v", err)
				continue
			}
			if st.Size() != want {
				t.Errorf("after layout: %s has %d bytes, want %d", st.Name(), st.Size(), want)
			}
		}
	}
}

func (r *recorder) run(ctx context.Context) (*Result, error) {
	opt := Options{Engine: EngineBuiltin, DropCaches: func() error { r.drops++; return nil }}
	return run(ctx, r.job, opt, r.hooks())
}

// rw returns the events of one clone that read or write.
func (r *recorder) rw(job int) []ioEvent {
	var out []ioEvent
	for _, e := range r.events[job] {
		if e.op != opSync {
			out = append(out, e)
		}
	}
	return out
}

// Every access pattern with every ioengine moves what fio would: whole
// blocks of every file, round robin over the files, each random block
// once, each sequential direction in order.
func TestBuiltinPatterns(t *testing.T) {
	for _, rw := range []string{RWRead, RWWrite, RWRandRead, RWRandWrite, RWMixed, RWRandMixed} {
		for _, engine := range []string{IOEnginePsync, IOEngineSync, IOEngineLibaio} {
			t.Run(rw+"-"+engine, func(t *testing.T) {
				t.Parallel()
				j := Job{
					Name: "p", Dir: t.TempDir(), RW: rw, BS: 4096, Size: 3*40*4096 + 3000,
					NrFiles: 3, NumJobs: 2, IOEngine: engine, IODepth: 4, RWMixRead: 60,
				}
				rec := newRecorder(t, j)
				res, err := rec.run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				checkPattern(t, rec, res)
			})
		}
	}
}

func checkPattern(t *testing.T, rec *recorder, res *Result) {
	j := &rec.job
	if !rec.laidOut || rec.drops != 1 {
		t.Errorf("laid out %v, caches dropped %d times: want once each", rec.laidOut, rec.drops)
	}
	blocks := totalBlocks(j.fileSizes(), j.BS)
	if j.RW == RWMixed {
		// Reads and writes each go through the files, so the files do not
		// run out; fio stops once it has issued the files' size, which
		// takes one block more than the whole blocks when there are
		// partial blocks (checked against fio 3.33).
		var size int64
		for _, s := range j.fileSizes() {
			size += s
		}
		blocks = (size + j.BS - 1) / j.BS
	}
	if got, want := res.Read.Bytes+res.Write.Bytes, int64(j.NumJobs)*blocks*j.BS; got != want {
		t.Errorf("%d bytes moved, want %d (%d jobs x %d blocks)", got, want, j.NumJobs, blocks)
	}
	if res.Read.IOs*j.BS != res.Read.Bytes || res.Write.IOs*j.BS != res.Write.Bytes {
		t.Errorf("I/Os %d+%d do not make %d+%d bytes", res.Read.IOs, res.Write.IOs, res.Read.Bytes, res.Write.Bytes)
	}
	if (res.Read.Bytes > 0) != j.reads() || (res.Write.Bytes > 0) != j.writes() {
		t.Errorf("read %d bytes, wrote %d: not what rw=%s does", res.Read.Bytes, res.Write.Bytes, j.RW)
	}
	for _, s := range []*Side{&res.Read, &res.Write} {
		if s.Bytes == 0 {
			continue
		}
		if s.BW <= 0 || s.IOPS <= 0 || s.RuntimeMS <= 0 || s.Clat.N != s.IOs || s.Lat.N != s.IOs || len(s.Clat.Percentiles) != len(Percentiles) {
			t.Errorf("implausible side %+v", s)
		}
	}
	if j.IOEngine == IOEngineLibaio && res.Read.Slat.N+res.Write.Slat.N != res.Read.IOs+res.Write.IOs {
		t.Errorf("libaio: %d+%d submission latencies for %d+%d I/Os", res.Read.Slat.N, res.Write.Slat.N, res.Read.IOs, res.Write.IOs)
	}
	files, _ := os.ReadDir(j.Dir)
	if len(files) != 0 {
		t.Errorf("%d files left in %s", len(files), j.Dir)
	}
	for job := range j.NumJobs {
		ev := rec.rw(job)
		if int64(len(ev)) != blocks {
			t.Errorf("job %d issued %d I/Os, want %d", job, len(ev), blocks)
		}
		checkRoundRobin(t, j, rec.events[job])
		if j.random() {
			checkNoRepeats(t, j, ev)
		} else {
			checkSequential(t, j, ev)
		}
	}
}

// checkRoundRobin: the files take turns (fio's file_service_type
// roundrobin), fsyncs included, skipping the files that are done. With
// rw=rw a file is done when either direction reaches its end, so only the
// first round is certain.
func checkRoundRobin(t *testing.T, j *Job, ev []ioEvent) {
	t.Helper()
	if j.RW == RWMixed {
		ev = ev[:j.NrFiles]
	}
	blocks := j.fileSizes()
	used := make([]int64, j.NrFiles)
	prev := -1
	for i, e := range ev {
		if e.endFsync {
			continue
		}
		want := (prev + 1) % j.NrFiles
		for tries := 0; used[want] == blocks[want]/j.BS; tries++ {
			if tries == j.NrFiles {
				t.Errorf("I/O %d (%s) after every file's blocks were used", i, e.op)
				return
			}
			want = (want + 1) % j.NrFiles
		}
		if e.file != want {
			t.Errorf("I/O %d (%s) went to file %d, want %d (round robin)", i, e.op, e.file, want)
			return
		}
		if e.op != opSync {
			used[e.file]++
		}
		prev = e.file
	}
}

// checkNoRepeats: within a pass over a file, every block at most once.
func checkNoRepeats(t *testing.T, j *Job, ev []ioEvent) {
	t.Helper()
	seen := map[[3]int64]bool{}
	for _, e := range ev {
		if e.offset%j.BS != 0 {
			t.Fatalf("offset %d is not a whole block", e.offset)
		}
		k := [3]int64{int64(e.pass), int64(e.file), e.offset}
		if seen[k] {
			t.Fatalf("file %d: offset %d twice in pass %d", e.file, e.offset, e.pass)
		}
		seen[k] = true
	}
}

// checkSequential: each direction goes through each file from 0, block
// after block.
func checkSequential(t *testing.T, j *Job, ev []ioEvent) {
	t.Helper()
	next := map[[2]int]int64{}
	for _, e := range ev {
		k := [2]int{e.file, int(e.op)}
		if e.offset != next[k] {
			t.Fatalf("file %d %s at %d, want %d", e.file, e.op, e.offset, next[k])
		}
		next[k] += j.BS
	}
}

// fsync=N: an fsync before the next I/O once N writes were issued, on the
// file whose turn it is; end_fsync: one per file, uncounted. With libaio, as
// in fio, an fsync is skipped when no write completed since the last one.
func TestBuiltinFsync(t *testing.T) {
	for _, engine := range []string{IOEnginePsync, IOEngineSync, IOEngineLibaio} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			j := Job{Name: "f", Dir: t.TempDir(), RW: RWRandWrite, BS: 4096, Size: 2 * 10 * 4096,
				NrFiles: 2, IOEngine: engine, IODepth: 4, Fsync: 3, EndFsync: true}
			rec := newRecorder(t, j)
			res, err := rec.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// 20 writes: fsyncs after writes 3, 6, ... 18 (after the 20th
			// the job is done before it asks for the next I/O).
			checkRoundRobin(t, &rec.job, rec.events[0])
			writes, periodic, end := 0, 0, 0
			for _, e := range rec.events[0] {
				switch {
				case e.endFsync:
					if e.file != end {
						t.Errorf("end_fsync %d on file %d", end, e.file)
					}
					end++
				case e.op == opSync:
					periodic++
					if writes%3 != 0 || writes == 0 {
						t.Errorf("fsync after %d writes", writes)
					}
				default:
					writes++
				}
			}
			want := 6
			if engine == IOEngineLibaio {
				want = max(1, min(periodic, 6))
			}
			if writes != 20 || periodic != want || end != 2 || res.Sync.IOs != int64(periodic) {
				t.Errorf("%d writes, %d fsyncs (result %d), %d end fsyncs: want 20, 6, 2", writes, periodic, res.Sync.IOs, end)
			}
			if res.Sync.Lat.N != int64(periodic) || res.Sync.Lat.Mean <= 0 {
				t.Errorf("fsync latency %+v", res.Sync.Lat)
			}
		})
	}
}

// diskDir is a directory on a disk filesystem (not tmpfs), for O_DIRECT.
func diskDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "fsbench-fio-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func skipNoDirect(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrNoDirectIO) {
		t.Skipf("O_DIRECT refused under /var/tmp, so direct I/O cannot be tested here: %v", err)
	}
}

// Direct I/O with aligned buffers, and libaio keeps iodepth I/Os in flight.
func TestBuiltinDirect(t *testing.T) {
	dir := diskDir(t)
	for _, tc := range []struct{ rw, engine string }{
		{RWRandRead, IOEngineLibaio}, {RWWrite, IOEngineLibaio}, {RWRandMixed, IOEnginePsync}, {RWRead, IOEngineSync},
	} {
		j := Job{Name: tc.rw + "-" + tc.engine, Dir: dir, RW: tc.rw, BS: 16384, Direct: true, Size: 1 << 20,
			IOEngine: tc.engine, IODepth: 8, RWMixRead: 50}
		rec := newRecorder(t, j)
		res, err := rec.run(context.Background())
		skipNoDirect(t, err)
		if err != nil {
			t.Fatalf("%s: %v", j.Name, err)
		}
		if rec.drops != 0 {
			t.Errorf("%s: caches dropped for a direct job", j.Name)
		}
		if got := res.Read.Bytes + res.Write.Bytes; got != 1<<20 {
			t.Errorf("%s: %d bytes, want %d", j.Name, got, 1<<20)
		}
		maxInflight := 0
		for _, e := range rec.events[0] {
			maxInflight = max(maxInflight, e.inflight)
		}
		want := 1
		if tc.engine == IOEngineLibaio {
			want = j.IODepth
		}
		if maxInflight != want {
			t.Errorf("%s: at most %d I/Os in flight, want %d", j.Name, maxInflight, want)
		}
	}
}

// time_based loops over the files until the runtime; ramp_time runs first
// and is not measured.
func TestBuiltinTimeBased(t *testing.T) {
	for _, rw := range []string{RWRandRead, RWRead} {
		t.Run(rw, func(t *testing.T) {
			t.Parallel()
			j := Job{Name: "t", Dir: t.TempDir(), RW: rw, BS: 4096, Size: 8 * 4096,
				Runtime: 300 * time.Millisecond, TimeBased: true, RampTime: 100 * time.Millisecond}
			rec := newRecorder(t, j)
			start := time.Now()
			res, err := rec.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took < 400*time.Millisecond {
				t.Errorf("took %v, less than ramp_time + runtime", took)
			}
			if res.Read.RuntimeMS < 300 || res.Read.RuntimeMS > 450 {
				t.Errorf("runtime %d ms, want about 300", res.Read.RuntimeMS)
			}
			ev := rec.rw(0)
			if int64(len(ev)) <= res.Read.IOs || res.Read.IOs < 16 {
				t.Errorf("%d I/Os issued, %d measured: want more than two passes, some in the ramp", len(ev), res.Read.IOs)
			}
			// The file starts over every 8 blocks; each round visits each block once.
			for round := 0; (round+1)*8 <= len(ev); round++ {
				seen := map[int64]bool{}
				for i, e := range ev[round*8 : (round+1)*8] {
					if rw == RWRead && e.offset != int64(i)*4096 {
						t.Fatalf("round %d: I/O %d at %d", round, i, e.offset)
					}
					if seen[e.offset] {
						t.Fatalf("round %d: offset %d twice", round, e.offset)
					}
					seen[e.offset] = true
				}
			}
		})
	}
}

// io_size beyond size loops over the files: passes of size bytes.
func TestBuiltinIOSize(t *testing.T) {
	j := Job{Name: "i", Dir: t.TempDir(), RW: RWRandRead, BS: 4096, Size: 16 * 4096, NrFiles: 2, IOSize: 40 * 4096}
	rec := newRecorder(t, j)
	res, err := rec.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Read.Bytes != 40*4096 {
		t.Errorf("%d bytes, want io_size %d", res.Read.Bytes, 40*4096)
	}
	passes := map[int]int{}
	for _, e := range rec.events[0] {
		passes[e.pass]++
	}
	if passes[0] != 16 || passes[1] != 16 || passes[2] != 8 || len(passes) != 3 {
		t.Errorf("I/Os per pass %v, want 16, 16, 8", passes)
	}
	checkNoRepeats(t, &rec.job, rec.events[0])
}

// rwmixread splits the I/Os of rw and randrw.
func TestBuiltinRWMix(t *testing.T) {
	for _, mix := range []int{0, 30, 100} {
		j := Job{Name: fmt.Sprint("m", mix), Dir: t.TempDir(), RW: RWRandMixed, BS: 4096, Size: 1000 * 4096, RWMixRead: mix}
		rec := newRecorder(t, j)
		res, err := rec.run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got := 100 * float64(res.Read.IOs) / float64(res.Read.IOs+res.Write.IOs)
		if got < float64(mix)-7 || got > float64(mix)+7 {
			t.Errorf("rwmixread %d: %.1f%% reads", mix, got)
		}
	}
}

func TestBuiltinCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	j := Job{Name: "c", Dir: t.TempDir(), RW: RWRandRead, BS: 4096, Size: 64 * 4096, Runtime: time.Minute, TimeBased: true}
	rec := newRecorder(t, j)
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := rec.run(ctx)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Fatalf("cancelled run: %v after %v", err, time.Since(start))
	}
	if files, _ := os.ReadDir(j.Dir); len(files) != 0 {
		t.Errorf("%d files left after cancelling", len(files))
	}
}

func TestBuiltinKthreadCPU(t *testing.T) {
	j := Job{Name: "k", Dir: t.TempDir(), RW: RWWrite, BS: 4096, Size: 64 * 4096, KthreadCPU: true, EndFsync: true}
	rec := newRecorder(t, j)
	res, err := rec.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kthreads
	if k == nil || k.WallMS < 0 || k.Ticks < 0 {
		t.Fatalf("kernel thread CPU %+v", k)
	}
	var sum int64
	for _, n := range k.ByName {
		sum += n.Ticks
	}
	if sum != k.Ticks {
		t.Errorf("ticks by name add up to %d, not %d", sum, k.Ticks)
	}
}

// Without fio in PATH, "auto" is the built-in engine.
func TestAutoWithoutFio(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	res, err := Run(context.Background(), Job{Name: "a", Dir: t.TempDir(), RW: RWWrite, BS: 4096, Size: 8 * 4096},
		Options{DropCaches: func() error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Engine != EngineBuiltin || res.Version != BuiltinVersion || res.Write.Bytes != 8*4096 {
		t.Fatalf("engine %q version %q, %d bytes", res.Engine, res.Version, res.Write.Bytes)
	}
}
