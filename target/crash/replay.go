package crash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsbench/fsbench/target/devmapper"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
)

// replay checks the campaign's states, after those an earlier boot
// checked, within the budget: in memory where it fits (crash_ram.go), by
// as many workers as the target has CPUs, each replaying a copy of the
// log of its own and checking every workers-th state.
func (c *crashCampaign) replay(ctx context.Context, sc *crashScratch) (*step.Outcome, error) {
	e := c.e
	maxStates, maxTime := int(e.P.Int("max_states")), e.P.Duration("max_time")
	points := logwrites.Points{Flush: true, FUA: true, Marks: e.P.Bool("at_marks"), EveryWrite: int(e.P.Int("every_write"))}
	fsck, drop := e.P.Bool("fsck"), e.P.Bool("drop_synced_write")
	interruptAfter := int(e.P.Int("interrupt_after"))
	replayOn, parallel := e.P.String("replay_on"), int(e.P.Int("parallel"))
	dev := deviceModel(e.P)
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	l, f, fsAt, err := c.verifiedLog(sc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	points.From = fsAt + 1
	c.workName = sc.Work
	space := l.Space(points, dev)
	chosen, rule := space.Choose(maxStates)
	done, err := readStateResults(crashResultsPath(e))
	if err != nil {
		return nil, err
	}
	results, err := appendStateResults(crashResultsPath(e))
	if err != nil {
		return nil, err
	}
	defer results.Close()
	spent, err := c.resume(sc, done)
	if err != nil {
		return nil, err
	}
	skip := -1
	if drop {
		if skip, err = c.syncedWrite(l); err != nil {
			return nil, err
		}
		e.Logf("%s: negative control: entry %s is not replayed", e.Step.ID(), l.Entries[skip])
	}

	defer quietConsole()()
	workers, err := c.startWorkers(l, replayOn, parallel, sc.LogBytes, skip)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, w := range workers {
			w.close()
		}
	}()
	e.Logf("%s: checking %d states, %d at a time, on the %s", e.Step.ID(), len(chosen), len(workers), c.replayOn)

	run := &replayRun{c: c, chosen: chosen, done: done, results: results, fsck: fsck,
		start: time.Now(), lastLog: time.Now(), spent: spent, maxTime: maxTime.Seconds(),
		interruptAfter: interruptAfter, interrupted: sc.Interrupted}
	if err := run.all(ctx, workers); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if run.interrupt {
		return nil, c.interrupt(ctx, sc, run.checkedNow)
	}
	replayTime := run.elapsed()
	// Leave the partition as the workload left it, for the steps after.
	if err := c.replayAll(l); err != nil {
		return nil, err
	}
	return c.outcome(sc, space, chosen, rule, done, replayTime), nil
}

// verifiedLog opens the recorded log, checks that it is the one the
// workload wrote (its digest), and returns it with the index of the mark
// after which the filesystem exists.
func (c *crashCampaign) verifiedLog(sc *crashScratch) (*logwrites.Log, *os.File, int, error) {
	l, f, err := c.openLog()
	if err != nil {
		return nil, nil, 0, err
	}
	if d, err := l.Digest(); err != nil {
		f.Close()
		return nil, nil, 0, err
	} else if d != sc.Digest {
		f.Close()
		return nil, nil, 0, fmt.Errorf("the write log on %s changed since it was recorded (digest %.12s, recorded %.12s): it is not replayed", c.logPart.Name, d, sc.Digest)
	}
	fsAt := l.FindMark(logwrites.FSMark)
	if fsAt < 0 {
		f.Close()
		return nil, nil, 0, fmt.Errorf("the write log on %s has no %q mark", c.logPart.Name, logwrites.FSMark)
	}
	return l, f, fsAt, nil
}

// resume counts the states an earlier boot checked (done), keeping the
// count in the step's scratch, and returns the replay time they took.
func (c *crashCampaign) resume(sc *crashScratch, done map[int]stateResult) (float64, error) {
	if len(done) == 0 {
		return 0, nil
	}
	spent := 0.0
	for _, r := range done {
		spent = max(spent, r.At)
	}
	sc.Resumed++
	sc.Reused += len(done)
	e := c.e
	e.Logf("%s: resuming after %d states checked before", e.Step.ID(), len(done))
	err := e.SetScratch(sc)
	if err == nil {
		err = e.SaveScratch()
	}
	return spent, err
}

// all runs the workers side by side. The first worker that fails stops
// the others; their cancellations are not the cause.
func (run *replayRun) all(ctx context.Context, workers []*stateWorker) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var failed error
	var once sync.Once
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := run.work(wctx, w, i, len(workers)); err != nil && !errors.Is(err, context.Canceled) {
				once.Do(func() { failed = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return failed
}

// replayRun is what the workers of a replay share.
type replayRun struct {
	c       *crashCampaign
	chosen  []logwrites.State
	fsck    bool
	start   time.Time
	spent   float64 // replay time of the boots before
	maxTime float64

	mu             sync.Mutex
	done           map[int]stateResult
	results        *stateResults
	lastLog        time.Time
	checkedNow     int
	interruptAfter int
	interrupted    bool
	interrupt      bool // the self-test's cut is due: the workers stop
}

func (run *replayRun) elapsed() float64 { return run.spent + time.Since(run.start).Seconds() }

// work checks the states i, i+n, i+2n, ... of the chosen ones that are not
// done, on w's replay.
func (run *replayRun) work(ctx context.Context, w *stateWorker, i, n int) error {
	for k := i; k < len(run.chosen); k += n {
		st := run.chosen[k]
		if err := ctx.Err(); err != nil {
			return err
		}
		run.mu.Lock()
		_, done := run.done[st.N]
		stop := run.interrupt || run.elapsed() > run.maxTime
		run.mu.Unlock()
		if stop {
			return nil
		}
		if done {
			continue
		}
		t0 := time.Now()
		clock := newPhaseClock()
		if err := w.advance(st.Applied); err != nil {
			return err
		}
		clock.lap(phaseReplay)
		r, err := w.checkState(ctx, st, run.fsck, clock)
		if err != nil {
			return err
		}
		r.Times = clock.times
		r.Entry = w.log.Entries[st.Marks()-1].String()
		r.Seconds = time.Since(t0).Seconds()
		if err := run.record(r); err != nil {
			return err
		}
	}
	return nil
}

// Record keeps a checked state, durably, and decides whether the
// self-test's power cut is due.
func (run *replayRun) record(r stateResult) error {
	run.mu.Lock()
	defer run.mu.Unlock()
	r.At = run.elapsed()
	run.done[r.N] = r
	if err := run.results.add(r); err != nil {
		return err
	}
	e := run.c.e
	if time.Since(run.lastLog) > 30*time.Second {
		run.lastLog = time.Now()
		e.Logf("%s: %d of %d states checked", e.Step.ID(), len(run.done), len(run.chosen))
	}
	if run.checkedNow++; run.interruptAfter > 0 && !run.interrupted && run.checkedNow == run.interruptAfter {
		run.interrupt = true
	}
	return nil
}

// stateWorker replays the log onto a device of its own and checks states
// on it, each in a snapshot of its own.
type stateWorker struct {
	c         *crashCampaign
	e         *step.Env         // the worker's own: its mounts
	part      runplan.Partition // as the worker mounts it
	log       *logwrites.Log
	rp        *logwrites.Replayer
	dev       *os.File          // the replay's target
	cow       *devmapper.Device // the snapshot store on the log partition, replaying on the device
	ram       *ramImage
	snapName  string
	snapshot  devmapper.Target
	dur       *durables
	marksSeen int
}

// startWorkers sets up the replay's devices: in memory, one copy per
// worker, or the partition itself for one worker.
func (c *crashCampaign) startWorkers(l *logwrites.Log, replayOn string, parallel int, logBytes int64, skip int) ([]*stateWorker, error) {
	sectors, err := linux.BlockSectors(c.part.Device)
	if err != nil {
		return nil, err
	}
	need := ramNeed(logBytes, c.cowBytes)
	n, why := workerCount(parallel, runtime.NumCPU(), c.part.FS)
	onRAM, whyRAM := chooseRAM(replayOn, need*int64(n))
	for !onRAM && replayOn == "auto" && n > 1 {
		n--
		onRAM, whyRAM = chooseRAM(replayOn, need*int64(n))
	}
	var ws []*stateWorker
	fail := func(err error) ([]*stateWorker, error) {
		for _, w := range ws {
			w.close()
		}
		return nil, err
	}
	if onRAM {
		// The bound of the tmpfs: the images are sparse, and only what
		// the log writes takes memory (need, checked above).
		if err := mountRAM(int64(n) * (int64(sectors)*512 + c.cowBytes)); err != nil && replayOn == "ram" {
			return nil, err
		} else if err != nil {
			onRAM, whyRAM = false, fmt.Sprintf("no replay in memory: %v", err)
		}
	}
	if !onRAM {
		n, why = 1, "one at a time on the device"
		c.replayOn = "device (" + whyRAM + ")"
		cow, err := linear(crashCOWName, c.logPart.Device, c.logBytes, c.cowBytes)
		if err != nil {
			return nil, err
		}
		if err := zeroOut(c.part.Device); err != nil {
			cow.Remove()
			return nil, err
		}
		dev, err := os.OpenFile(c.part.Device, os.O_RDWR, 0)
		if err != nil {
			cow.Remove()
			return nil, err
		}
		w, err := c.newWorker(0, l, dev, c.part.Device, cow.Node, sectors, skip)
		if err != nil {
			dev.Close()
			cow.Remove()
			return nil, err
		}
		w.cow = cow
		return []*stateWorker{w}, nil
	}
	c.replayOn = fmt.Sprintf("ram (%s; %s)", whyRAM, why)
	for i := range n {
		img, err := newRAMImage(i, int64(sectors)*512, c.cowBytes)
		if err != nil && i > 0 {
			c.replayOn = fmt.Sprintf("ram (%s; %d at a time: worker %d has no loop device: %v)", whyRAM, i, i, err)
			break
		}
		if err != nil {
			return fail(err)
		}
		w, err := c.newWorker(i, l, img.file, img.part.Name(), img.cow.Name(), sectors, skip)
		if err != nil {
			img.close()
			return fail(err)
		}
		w.ram = img
		ws = append(ws, w)
	}
	return ws, nil
}

// maxWorkers bounds the states checked at once.
const maxWorkers = 8

// workerCount is how many states are checked at once: parallel when set,
// else one per CPU, but one on btrfs, which refuses a second filesystem
// with the same id while the first is mounted (before Linux 6.7's
// temp-fsid, which single-device clones need).
func workerCount(parallel, cpus int, fsType string) (int, string) {
	switch {
	case fsType == "btrfs":
		return 1, "btrfs mounts one filesystem of an id at a time"
	case parallel > 0:
		return min(parallel, maxWorkers), fmt.Sprintf("parallel = %d", parallel)
	}
	n := min(cpus, maxWorkers)
	return n, fmt.Sprintf("%d CPUs", cpus)
}

func (c *crashCampaign) newWorker(i int, l *logwrites.Log, dev *os.File, origin, cow string, sectors uint64, skip int) (*stateWorker, error) {
	originNum, err := linux.DevNumber(origin)
	if err != nil {
		return nil, err
	}
	cowNum, err := linux.DevNumber(cow)
	if err != nil {
		return nil, err
	}
	w := &stateWorker{c: c, e: c.e.ForWorker(), part: *c.part, log: l, dev: dev, dur: newDurables(),
		snapName: fmt.Sprintf("%s-%d", crashSnapName, i),
		snapshot: devmapper.Target{Start: 0, Length: sectors, Kind: "snapshot", Params: originNum + " " + cowNum + " N 8"}}
	if i > 0 {
		w.part.Mountpoint = fmt.Sprintf("%s-%d", c.e.MountDir(c.part), i)
		if w.part.FS == "xfs" {
			// xfs refuses a second filesystem with the same UUID unless
			// told; nouuid changes nothing of the log's recovery.
			w.part.Data = strings.TrimPrefix(w.part.Data+",nouuid", ",")
		}
	}
	var target io.WriterAt = zeroingDevice{dev}
	if origin != c.part.Device {
		target = holeFile{dev}
	}
	w.rp = logwrites.NewReplayer(l, target)
	if skip >= 0 {
		w.rp.Skip = map[int]bool{skip: true}
	}
	return w, nil
}

// advance replays the log up to state applied and reads the workload's
// marks on the way.
func (w *stateWorker) advance(applied int) error {
	if err := w.rp.To(applied); err != nil {
		return err
	}
	for ; w.marksSeen < applied; w.marksSeen++ {
		if en := w.log.Entries[w.marksSeen]; en.IsMark() {
			if err := w.dur.add(en.Mark); err != nil {
				return err
			}
		}
	}
	return nil
}

// durablesAt is what the workload had been promised at the state's
// crash: the marks before it. A state beyond its prefix crashed after
// entries it does not hold all of; its marks are read afresh.
func (w *stateWorker) durablesAt(st logwrites.State) (*durables, error) {
	if st.Beyond == nil {
		return w.dur, nil
	}
	d := newDurables()
	for _, en := range w.log.Entries[:st.Beyond.At] {
		if en.IsMark() {
			if err := d.add(en.Mark); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// workDir is the recorded workload's directory in the filesystem
// mounted at mnt.
func (w *stateWorker) workDir(mnt string) string {
	if w.c.workName != "" {
		return filepath.Join(mnt, w.c.workName)
	}
	return w.e.WorkDirIn(mnt)
}

// beyond writes what a model's state holds beyond its prefix into the
// snapshot, before the mount: the snapshot store takes it, and the
// replay stays at the prefix for the next state.
func (w *stateWorker) beyond(st logwrites.State, node string) error {
	if st.Beyond == nil {
		return nil
	}
	f, err := os.OpenFile(node, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = w.rp.Beyond(st, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// overflowed says how the state's snapshot store filled up, "" when it
// did not (or its status cannot be read).
func (w *stateWorker) overflowed() string {
	status, err := devmapper.Status(w.snapName)
	if err != nil {
		return ""
	}
	return snapshotFull(status, w.c.cowBytes)
}

// snapshotFull reads a dm-snapshot status: what to say when its store
// filled up and dropped the snapshot, "" otherwise.
func snapshotFull(status string, store int64) string {
	if strings.HasPrefix(status, "Invalid") || strings.HasPrefix(status, "Overflow") {
		return fmt.Sprintf("the snapshot store (%d MiB) filled up: raise snapshot_size", store>>20)
	}
	return ""
}

func (w *stateWorker) close() {
	w.e.Cleanup()
	(&devmapper.Device{Name: w.snapName}).Remove()
	if w.ram != nil {
		w.ram.close()
	} else if w.dev != nil {
		w.dev.Close()
	}
	if w.cow != nil {
		w.cow.Remove()
	}
}

// checkState mounts a snapshot of the replayed device read-write, as a
// rebooted board would (the journal replays into the snapshot store),
// checks the workload's files, unmounts, runs the checker, and drops the
// snapshot.
func (w *stateWorker) checkState(ctx context.Context, st logwrites.State, fsck bool, clock *phaseClock) (stateResult, error) {
	e := w.e
	dur, err := w.durablesAt(st)
	if err != nil {
		return stateResult{}, err
	}
	r := stateResult{N: st.N, Applied: st.Applied, Code: st.Code(), Point: st.Point, LastOp: dur.last}
	if st.Beyond != nil {
		r.Model = st.Beyond.String()
	}
	snap, err := devmapper.Create(w.snapName, crashNodeDir, []devmapper.Target{w.snapshot})
	if err != nil {
		return r, err
	}
	defer func() {
		snap.Remove()
		clock.lap(phaseDrop)
	}()
	if err := kernelNamed(snap); err != nil {
		return r, err
	}
	if err := w.beyond(st, snap.Node); err != nil {
		if full := w.overflowed(); full != "" {
			r.Skipped = full
			return r, nil
		}
		return r, err
	}
	sp := w.part
	sp.Device = snap.Node
	forgetBtrfs(sp.FS)
	in := &Inspection{}
	klog, err := linux.NewKmsgCursor()
	if err != nil {
		return r, err
	}
	defer klog.Close()
	clock.lap(phaseSnapshot)
	mnt, err := MountInspect(ctx, e, &sp, cursorLog(klog), in)
	if err != nil {
		return r, err
	}
	clock.lap(phaseMount)
	rep := &DataReport{Class: DataLostSynced}
	if mnt != "" {
		rep, err = w.c.work.check(w.workDir(mnt), dur)
		if err != nil {
			return r, err
		}
		clock.lap(phaseData)
		if err := linux.UnmountWithin(mnt, 2*time.Minute); err != nil {
			return r, err
		}
		e.ForgetMounts()
		clock.lap(phaseUnmount)
	} else {
		rep.problem("the filesystem does not mount")
	}
	if fsck && in.MountErr == nil {
		if err := CheckAndRepair(ctx, e, &sp, in); err != nil {
			return r, err
		}
	}
	clock.lap(phaseChecker)
	in.Classify()
	status, err := devmapper.Status(w.snapName)
	if err != nil {
		return r, err
	}
	if full := snapshotFull(status, w.c.cowBytes); full != "" {
		r.Skipped = full
		return r, nil
	}
	// "<allocated>/<total> <metadata>", in sectors.
	if used, _, ok := strings.Cut(status, "/"); ok {
		n, _ := strconv.ParseInt(used, 10, 64)
		r.Snapshot = n * 512
	}
	r.Consistency, r.Data, r.Refused = in.Class, rep.Class, in.MountErr != nil
	if r.Refused || !r.good() {
		mount := append([]string{}, in.Notes.Lines...)
		if in.MountErr != nil {
			mount = append([]string{in.MountErr.Error()}, mount...)
		}
		r.Mount = strings.Join(mount, " | ")
	}
	if !r.good() {
		r.Checker = in.Checker
		if in.Checked {
			r.Checker += fmt.Sprintf(": exit %d", in.CheckCode)
		}
		r.Problems = strings.Join(rep.Problems, "; ")
	}
	return r, nil
}
