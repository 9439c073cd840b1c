package crash

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/devmapper"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
)

// The device-mapper devices of a campaign: the log region and the
// snapshot store are linear slices of the log partition; the log-writes
// device lives while the workload is recorded, the snapshot while one
// state is checked.
const (
	crashLogName  = "fsbench-crashlog"
	crashCOWName  = "fsbench-crashcow"
	crashLWName   = "fsbench-logwrites"
	crashSnapName = "fsbench-crashsnap"
	crashNodeDir  = "/dev/fsbench"
)

// crashScratch is what a campaign keeps across reboots: that its log is
// recorded, and the log's digest, which proves at every replay that the
// log is the one the workload wrote.
type crashScratch struct {
	Iter       int     `json:"iter"`
	Salt       string  `json:"salt"`
	Digest     string  `json:"digest,omitempty"`
	Entries    int     `json:"entries,omitempty"`
	LogBytes   int64   `json:"log_bytes,omitempty"`
	RecordTime float64 `json:"record_time,omitempty"`
	// Interrupted: the self-test's power cut was asked for.
	Interrupted bool `json:"interrupted,omitempty"`
	// Resumed counts the replays that started after states an earlier
	// boot had checked, and Reused those states.
	Resumed int `json:"resumed,omitempty"`
	Reused  int `json:"reused,omitempty"`
	// SharedFrom names the case whose recording this campaign checks
	// under its own device model.
	SharedFrom string `json:"shared_from,omitempty"`
	// Work is the name of the directory the workload wrote in, in the
	// recorded filesystem: the recording case's, which a campaign that
	// shares the recording checks.
	Work string `json:"work,omitempty"`
}

// stateResult is one checked state, one line of the campaign's results
// file in the state directory: appended and synced as each state is
// done, so that a campaign cut short resumes after its last state.
type stateResult struct {
	N           int     `json:"n"` // the state's number in the model's enumeration
	Applied     int     `json:"applied"`
	Code        string  `json:"code,omitempty"` // logwrites.State.Code: what fsbench crash-state -state takes
	Point       string  `json:"point"`
	Model       string  `json:"model,omitempty"` // what the device model did beyond the prefix
	Consistency string  `json:"consistency,omitempty"`
	Data        string  `json:"data,omitempty"`
	Skipped     string  `json:"skipped,omitempty"` // why the state has no verdict
	Seconds     float64 `json:"seconds"`
	// At is the campaign's replay time when the state was done, across
	// boots: states are checked side by side, so their seconds overlap.
	At float64 `json:"at,omitempty"`
	// Times is where the state's seconds went, by phase (statePhases).
	Times []float64 `json:"times,omitempty"`
	// Snapshot is the bytes of the snapshot store the mount and the
	// checker used.
	Snapshot int64 `json:"snapshot,omitempty"`
	// Refused: the filesystem refused the state at its first mount (a
	// journal whose checksum caught a torn block); the checker's repair
	// may have let it mount after.
	Refused bool `json:"refused,omitempty"`
	// For a state that is not good, what the user needs to look at it.
	Entry    string `json:"entry,omitempty"`    // the log's last entry in the state
	LastOp   string `json:"last_op,omitempty"`  // the workload's last mark before it
	Mount    string `json:"mount,omitempty"`    // the mount's error or kernel messages
	Checker  string `json:"checker,omitempty"`  // the checker's command and exit
	Problems string `json:"problems,omitempty"` // what the data check found
}

// statePhases names the parts of a state's time, in Times' order: the
// replay of its log entries, the snapshot's creation, the mount (with its
// recovery), the data check, the unmount, the checker, and the snapshot's
// removal.
var statePhases = []string{"replay", "snapshot", "mount", "data", "unmount", "checker", "drop"}

// phaseClock splits a state's time into statePhases.
type phaseClock struct {
	times []float64
	last  time.Time
}

func newPhaseClock() *phaseClock {
	return &phaseClock{times: make([]float64, len(statePhases)), last: time.Now()}
}

// lap adds the time since the last lap to phase i.
func (c *phaseClock) lap(i int) {
	now := time.Now()
	c.times[i] += now.Sub(c.last).Seconds()
	c.last = now
}

const (
	phaseReplay = iota
	phaseSnapshot
	phaseMount
	phaseData
	phaseUnmount
	phaseChecker
	phaseDrop
)

func (r stateResult) good() bool {
	return r.Skipped == "" && consRank[r.Consistency] <= consRank[ConsAutoFix] && dataRank[r.Data] <= dataRank[DataLostUnsynced]
}

// crashCampaign is one iteration's devices and settings.
type crashCampaign struct {
	e        *step.Env
	work     *crashWorkload
	part     *runplan.Partition
	logPart  *runplan.Partition
	logBytes int64 // the log region: the log partition but the snapshot store
	cowBytes int64
	// replayOn says where the states are replayed, and why.
	replayOn string
	// workName is the recorded workload's directory (crashScratch.Work).
	workName string
}

// States is one campaign: record the workload through dm-log-writes
// (unless an earlier boot did), then replay the log state by state.
func States(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	if e.Part == nil {
		return nil, fmt.Errorf("%s needs a partition", e.Step.ID())
	}
	if e.Part.Root {
		return nil, fmt.Errorf("partition %s is the root filesystem: crash_states overwrites it", e.Part.Name)
	}
	p := e.P
	logName := p.String("log")
	work := &crashWorkload{kind: p.String("workload"), ops: int(p.Int("operations")), size: p.Int("file_size"),
		large: p.Int("large_file_size"), noSync: p.String("fsync") == "none", dirOnly: p.String("fsync") == "dir"}
	snapshot := p.Int("snapshot_size")
	if p.Err != nil {
		return nil, p.Err
	}
	c := &crashCampaign{e: e, work: work, part: e.Part, cowBytes: snapshot}
	for i := range e.Plan.Partitions {
		if e.Plan.Partitions[i].Name == logName {
			c.logPart = &e.Plan.Partitions[i]
		}
	}
	if c.logPart == nil {
		return nil, fmt.Errorf("the plan has no partition %q for the write log", logName)
	}
	if mounted, err := linux.MountedAt(c.logPart.Device); err != nil {
		return nil, err
	} else if len(mounted) > 0 {
		return nil, fmt.Errorf("the log partition %s is mounted at %s; crash_states overwrites it", logName, mounted[0])
	}
	sectors, err := linux.BlockSectors(c.logPart.Device)
	if err != nil {
		return nil, err
	}
	c.logBytes = int64(sectors)*512 - snapshot
	if c.logBytes < 4<<20 {
		return nil, fmt.Errorf("the log partition %s (%d MiB) leaves less than 4MiB for the log beside the %d MiB snapshot store", logName, sectors>>11, snapshot>>20)
	}
	crashTeardown(e)
	defer crashTeardown(e)
	if err := os.MkdirAll(crashNodeDir, 0o755); err != nil {
		return nil, err
	}

	var sc crashScratch
	if len(e.Scratch) > 0 {
		if err := json.Unmarshal(e.Scratch, &sc); err != nil {
			return nil, fmt.Errorf("step data: %w", err)
		}
	}
	if sc.Iter != iter || sc.Digest == "" {
		sc = crashScratch{Iter: iter, Salt: fmt.Sprintf("%s/%s/%d/%s", e.Step.Test, e.Step.Case, iter, e.BootID)}
		os.Remove(crashResultsPath(e))
		if !c.adopt(&sc, iter) {
			work.pat = workload.Pattern{Salt: sc.Salt}
			if err := c.record(ctx, &sc); err != nil {
				return nil, err
			}
			if err := c.share(&sc); err != nil {
				return nil, err
			}
		}
		if err := e.SetScratch(sc); err != nil {
			return nil, err
		}
		if err := e.SaveScratch(); err != nil {
			return nil, err
		}
	}
	work.pat = workload.Pattern{Salt: sc.Salt}
	return c.replay(ctx, &sc)
}

func crashResultsPath(e *step.Env) string {
	// The recipe is in the name: an update test and a crash_states test
	// may share their test's and case's names.
	return filepath.Join(e.StateDir, "crash-"+step.SafeName(e.Step.Recipe+"-"+e.Step.Test+"-"+e.Step.Case)+".jsonl")
}

// linear maps bytes [off, off+n) of dev as a device of its own.
func linear(name, dev string, off, n int64) (*devmapper.Device, error) {
	num, err := linux.DevNumber(dev)
	if err != nil {
		return nil, err
	}
	return devmapper.Create(name, crashNodeDir, []devmapper.Target{{Start: 0, Length: uint64(n / 512), Kind: "linear", Params: fmt.Sprintf("%s %d", num, off/512)}})
}

// kernelNamed gives d a node named as the kernel names it (dm-N), so that
// the kernel's messages about it are found by its node's name.
func kernelNamed(d *devmapper.Device) error {
	node := filepath.Join(crashNodeDir, d.KName)
	os.Remove(node)
	if err := os.Rename(d.Node, node); err != nil {
		return err
	}
	d.Node = node
	return nil
}

// Record zeroes the partition, puts a dm-log-writes device over it that
// logs to the log region, makes the filesystem through it, marks the
// log, runs the workload, and takes the device down, which ends the log
// with the target's end mark.
func (c *crashCampaign) record(ctx context.Context, sc *crashScratch) error {
	e := c.e
	start := time.Now()
	if err := e.UnmountPart(c.part); err != nil {
		return err
	}
	e.ForgetMounts()
	if err := zeroOut(c.part.Device); err != nil {
		return err
	}
	// A stale log from an earlier campaign must never be read as this
	// one's: clear its super block first.
	if err := zeroRange(c.logPart.Device, 0, 64<<10); err != nil {
		return err
	}
	lw, err := c.logWrites()
	if err != nil {
		return err
	}
	defer lw.Remove()
	mark := func(text string) error { return devmapper.Message(crashLWName, "mark "+text) }
	through := *c.part
	through.Device = lw.Node
	if err := Remake(ctx, &through); errors.Is(err, ErrNoMkfs) {
		return step.Skipf("crash_states makes the filesystem through the write log: %v", err)
	} else if err != nil {
		return err
	}
	if err := mark(logwrites.FSMark); err != nil {
		return err
	}
	dir := e.MountDir(c.part)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	forgetBtrfs(c.part.FS)
	fl, err := linux.FlagsOf(c.part.Flags)
	if err != nil {
		return err
	}
	if _, err := linux.Mount(lw.Node, dir, c.part.FS, fl, c.part.Data); err != nil {
		return fmt.Errorf("mounting %s through dm-log-writes: %w", c.part.Name, err)
	}
	e.StartCleaner(&through, dir)
	work := e.WorkDirIn(dir)
	sc.Work = filepath.Base(work)
	werr := os.MkdirAll(work, 0o755)
	if werr == nil {
		werr = linux.SyncFS(work)
	}
	if werr == nil {
		e.Logf("%s: recording %d %s operations through dm-log-writes", e.Step.ID(), c.work.ops, c.work.kind)
		werr = c.runOrdered(ctx, work, lw.Node, mark)
	}
	if err := linux.UnmountWithin(dir, 2*time.Minute); err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("the %s workload: %w", c.work.kind, werr)
	}
	status, err := devmapper.Status(crashLWName)
	if err != nil {
		return err
	}
	if strings.Contains(status, "logging_disabled") {
		return fmt.Errorf("the write log filled the log partition %s (%d MiB for the log): give it more space or the workload fewer operations",
			c.logPart.Name, c.logBytes>>20)
	}
	if err := lw.Remove(); err != nil {
		return err
	}
	l, f, err := c.openLog()
	if err != nil {
		return err
	}
	defer f.Close()
	if sc.Digest, err = l.Digest(); err != nil {
		return err
	}
	sc.Entries, sc.LogBytes = len(l.Entries), l.End
	sc.RecordTime = time.Since(start).Seconds()
	e.Logf("%s: recorded %d log entries (%d MiB) in %.1fs", e.Step.ID(), sc.Entries, sc.LogBytes>>20, sc.RecordTime)
	return nil
}

// runOrdered runs the workload with its marks ordered by the recorder's
// flushes.
func (c *crashCampaign) runOrdered(ctx context.Context, dir, node string, mark marker) error {
	ordered, closeDev, err := orderedMarks(node, mark)
	if err != nil {
		return err
	}
	defer closeDev()
	return c.work.run(ctx, dir, ordered)
}

// logWrites puts a dm-log-writes device over the partition that logs to
// the log region, with a node named as the kernel names it.
func (c *crashCampaign) logWrites() (*devmapper.Device, error) {
	logDev, err := linear(crashLogName, c.logPart.Device, 0, c.logBytes)
	if err != nil {
		return nil, err
	}
	partNum, err := linux.DevNumber(c.part.Device)
	if err != nil {
		return nil, err
	}
	logNum, err := linux.DevNumber(logDev.Node)
	if err != nil {
		return nil, err
	}
	sectors, err := linux.BlockSectors(c.part.Device)
	if err != nil {
		return nil, err
	}
	lw, err := devmapper.Create(crashLWName, crashNodeDir, []devmapper.Target{{Start: 0, Length: sectors, Kind: "log-writes", Params: partNum + " " + logNum}})
	if err != nil {
		return nil, err
	}
	if err := kernelNamed(lw); err != nil {
		lw.Remove()
		return nil, err
	}
	return lw, nil
}

// openLog opens and checks the write log on the log region.
func (c *crashCampaign) openLog() (*logwrites.Log, *os.File, error) {
	f, err := os.Open(c.logPart.Device)
	if err != nil {
		return nil, nil, err
	}
	// The log-writes target wrote under the partition's page cache: drop
	// what it holds of an earlier read.
	if err := unix.IoctlSetInt(int(f.Fd()), unix.BLKFLSBUF, 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("dropping the cached blocks of %s: %w", c.logPart.Device, err)
	}
	devSize, err := linux.BlockSectors(c.part.Device)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	l, err := logwrites.Open(f, c.logBytes, int64(devSize)*512)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("the write log on %s: %w", c.logPart.Name, err)
	}
	return l, f, nil
}

// replayAll replays the whole log onto the partition, which then holds
// what the workload left, as after a replay on the device.
func (c *crashCampaign) replayAll(l *logwrites.Log) error {
	if err := zeroOut(c.part.Device); err != nil {
		return err
	}
	dev, err := os.OpenFile(c.part.Device, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer dev.Close()
	return logwrites.NewReplayer(l, zeroingDevice{dev}).To(len(l.Entries))
}

// interrupt asks the host to cut the power now, for the self-test of
// resuming, and waits for it.
func (c *crashCampaign) interrupt(ctx context.Context, sc *crashScratch, checked int) error {
	sc.Interrupted = true
	if err := c.e.SetScratch(sc); err != nil {
		return err
	}
	if err := c.e.SaveScratch(); err != nil {
		return err
	}
	c.e.Logf("%s: %d states checked; asking for a power cut (interrupt_after)", c.e.Step.ID(), checked)
	c.e.Printf("%s 0", runplan.PowerCutMarker)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Minute):
	}
	return errors.New("interrupt_after: no power cut came a minute after asking the host for one (has the board a power-cycle command?)")
}

// quietConsole keeps the kernel's console to warnings and worse while
// states are checked, and returns what puts it back. Every mount of a
// state logs its recovery (f2fs a line per fsync it rolls forward), and a
// serial console prints slower than the checks run; the runner reads the
// messages from /dev/kmsg all the same.
func quietConsole() func() {
	const path = "/proc/sys/kernel/printk"
	old, err := os.ReadFile(path)
	f := strings.Fields(string(old))
	if err != nil || len(f) == 0 {
		return func() {}
	}
	// Writing one number sets the first of the four, console_loglevel:
	// messages below it reach the console.
	if level, err := strconv.Atoi(f[0]); err != nil || level <= 5 || os.WriteFile(path, []byte("5"), 0) != nil {
		return func() {}
	}
	return func() { os.WriteFile(path, []byte(f[0]), 0) }
}

// syncedWrite finds, for the negative control, the log entry that wrote
// the first block of the first file the workload made durable.
func (c *crashCampaign) syncedWrite(l *logwrites.Log) (int, error) {
	var name string
	markAt := -1
	for _, en := range l.Entries {
		if rest, ok := strings.CutPrefix(en.Mark, markPrefix+"s:"); en.IsMark() && ok {
			name, _, _ = strings.Cut(rest, ":")
			markAt = en.Index
			break
		}
	}
	if markAt < 0 {
		return 0, errors.New("negative control: the workload made no file durable (drop_synced_write needs small_files, large_file, fsync or churn)")
	}
	want := make([]byte, l.SectorSize)
	c.work.pat.Stream(name).Read(want)
	var buf []byte
	for _, en := range l.Entries[:markAt] {
		if !en.HasData() {
			continue
		}
		var err error
		if buf, err = l.Data(en, buf); err != nil {
			return 0, err
		}
		for off := 0; off+len(want) <= len(buf); off += len(want) {
			if string(buf[off:off+len(want)]) == string(want) {
				return en.Index, nil
			}
		}
	}
	return 0, fmt.Errorf("negative control: no write before %s was durable holds its first block", name)
}

// tally is what the checked states of a campaign add up to.
type tally struct {
	cons, data map[string]int
	checked    int
	refused    int
	snapshot   int64
	skipped    []string
	firstBad   *stateResult
	// firstRefused is the first state the filesystem refused to mount.
	firstRefused *stateResult
	phases       []float64
}

func tallyStates(chosen []logwrites.State, done map[int]stateResult) *tally {
	t := &tally{cons: map[string]int{}, data: map[string]int{}, phases: make([]float64, len(statePhases))}
	for _, st := range chosen {
		r, ok := done[st.N]
		switch {
		case !ok:
			t.skipped = append(t.skipped, fmt.Sprint(st.Applied))
		case r.Skipped != "":
			t.skipped = append(t.skipped, fmt.Sprintf("%d (%s)", st.Applied, r.Skipped))
		default:
			t.checked++
			if r.Refused {
				t.refused++
				if t.firstRefused == nil {
					t.firstRefused = &r
				}
			}
			for i, x := range r.Times {
				if i < len(t.phases) {
					t.phases[i] += x
				}
			}
			t.snapshot = max(t.snapshot, r.Snapshot)
			t.cons[r.Consistency]++
			t.data[r.Data]++
			if !r.good() && t.firstBad == nil {
				t.firstBad = &r
			}
		}
	}
	return t
}

// outcome counts the campaign's states in their classes.
func (c *crashCampaign) outcome(sc *crashScratch, space *logwrites.Space, chosen []logwrites.State, rule string, done map[int]stateResult, replayTime float64) *step.Outcome {
	out := &step.Outcome{}
	t := tallyStates(chosen, done)
	for _, class := range []string{ConsClean, ConsAutoFix, ConsErrors, ConsFsck, ConsFatal} {
		out.Metric("consistency."+class, float64(t.cons[class]), "states")
	}
	for _, class := range []string{DataIntact, DataLostUnsynced, DataLostSynced, DataCorrupt} {
		out.Metric("data."+class, float64(t.data[class]), "states")
	}
	out.Metric("states", float64(space.Total), "")
	if math.IsInf(space.Possible, 1) {
		// 2^n of a window of 1,024 writes or more.
		out.Metric("states_possible", math.MaxFloat64, "")
		out.Attr("states_possible", "more than 1.8e308")
	} else {
		out.Metric("states_possible", space.Possible, "")
	}
	out.Metric("states_checked", float64(t.checked), "")
	out.Metric("states_mount_refused", float64(t.refused), "")
	out.Metric("states_skipped", float64(space.Total-int64(t.checked)), "")
	out.Metric("log_entries", float64(sc.Entries), "")
	out.Metric("log_bytes", float64(sc.LogBytes), "bytes")
	out.Metric("record_time", sc.RecordTime, "s")
	out.Metric("replay_time", replayTime, "s")
	if replayTime > 0 {
		out.Metric("states_per_minute", float64(t.checked)/replayTime*60, "states/min")
	}
	out.Metric("snapshot_used_max", float64(t.snapshot), "bytes")
	if t.checked > 0 {
		out.Attr("state_time", phaseShares(t.phases, t.checked))
	}
	out.Metric("resumed", float64(sc.Resumed), "")
	out.Metric("states_reused", float64(sc.Reused), "")
	out.Attr("device", space.Device.String())
	out.Attr("sampling", rule)
	if sc.SharedFrom != "" {
		out.Attr("recording", "shared with "+sc.SharedFrom)
	}
	if len(t.skipped) > 0 {
		out.Attr("skipped_states", clipList(t.skipped, 20))
	}
	out.Attr("workload", c.work.kind)
	out.Attr("replay_on", c.replayOn)
	if r := t.firstBad; r != nil {
		out.Attr("first_bad_state", cmp.Or(r.Code, fmt.Sprint(r.Applied)))
		out.Attr("first_bad_entry", r.Entry)
		out.Attr("first_bad_class", r.Consistency+"/"+r.Data)
		for k, v := range map[string]string{"first_bad_last_op": r.LastOp, "first_bad_mount": r.Mount,
			"first_bad_checker": r.Checker, "first_bad_data": r.Problems, "first_bad_model": r.Model} {
			if v != "" {
				out.Attr(k, v)
			}
		}
	}
	if r := t.firstRefused; r != nil {
		out.Attr("first_refused_model", r.Model)
		out.Attr("first_refused_mount", r.Mount)
	}
	bad := 0
	for _, r := range done {
		if r.Skipped == "" && !r.good() {
			bad++
		}
	}
	c.e.Logf("%s: %d states, %d checked, %d of them not good", c.e.Step.ID(), space.Total, t.checked, bad)
	return out
}

// phaseShares says where the states' time went: the mean seconds a state
// took and each phase's share of them, largest first.
func phaseShares(phases []float64, states int) string {
	total := 0.0
	for _, t := range phases {
		total += t
	}
	if total <= 0 {
		return ""
	}
	order := make([]int, len(phases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(phases[b], phases[a]) })
	parts := []string{fmt.Sprintf("%.3f s a state", total/float64(states))}
	for _, i := range order {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", statePhases[i], 100*phases[i]/total))
	}
	return strings.Join(parts, ", ")
}

func clipList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// stateResults is the campaign's append-only results file.
type stateResults struct{ f *os.File }

func appendStateResults(path string) (*stateResults, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &stateResults{f}, nil
}

func (s *stateResults) add(r stateResult) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return unix.Fdatasync(int(s.f.Fd()))
}

func (s *stateResults) Close() error { return s.f.Close() }

// readStateResults reads the states an earlier boot checked; a line the
// interruption tore is not a result.
func readStateResults(path string) (map[int]stateResult, error) {
	out := map[int]stateResult{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r stateResult
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.N > 0 {
			out[r.N] = r
		}
	}
	return out, sc.Err()
}

// zeroOut zeroes a whole block device (BLKZEROOUT: the device's write
// zeroes where it has them).
func zeroOut(dev string) error {
	sectors, err := linux.BlockSectors(dev)
	if err != nil {
		return err
	}
	return zeroRange(dev, 0, int64(sectors)*512)
}

func zeroRange(dev string, off, n int64) error {
	fd, err := unix.Open(dev, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return zeroFd(fd, dev, off, n)
}

func zeroFd(fd int, dev string, off, n int64) error {
	r := [2]uint64{uint64(off), uint64(n)}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKZEROOUT, uintptr(unsafe.Pointer(&r))); errno != 0 {
		return fmt.Errorf("zeroing %s: %w", dev, errno)
	}
	return nil
}

// forgetBtrfs makes btrfs forget the devices of unmounted filesystems
// (BTRFS_IOC_FORGET_DEV): every state carries the same filesystem id on
// another device, and btrfs refuses a device older than the one it last
// saw with that id.
func forgetBtrfs(fsType string) {
	if fsType != "btrfs" {
		return
	}
	fd, err := unix.Open("/dev/btrfs-control", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var args [4096]byte // struct btrfs_ioctl_vol_args, the name empty
	const forget = 1<<30 | 4096<<16 | 0x94<<8 | 5
	unix.Syscall(unix.SYS_IOCTL, uintptr(fd), forget, uintptr(unsafe.Pointer(&args[0])))
}

// crashTeardown takes down what a campaign cut short left: its mount and
// its device-mapper devices.
func crashTeardown(e *step.Env) {
	if e.Part != nil {
		if at, err := linux.MountedAt(e.Part.Device); err == nil {
			for _, m := range slices.Backward(at) {
				linux.Unmount(m)
			}
		}
	}
	// A snapshot or the log-writes device may still be mounted where
	// the partition mounts, or where another worker mounts it.
	if e.Part != nil {
		dir := e.MountDir(e.Part)
		for i := range maxWorkers {
			if i > 0 {
				dir = fmt.Sprintf("%s-%d", e.MountDir(e.Part), i)
			}
			var st, parent unix.Stat_t
			if unix.Stat(dir, &st) == nil && unix.Stat(filepath.Dir(dir), &parent) == nil && st.Dev != parent.Dev {
				linux.Unmount(dir)
			}
		}
	}
	for i := range maxWorkers {
		(&devmapper.Device{Name: fmt.Sprintf("%s-%d", crashSnapName, i)}).Remove()
	}
	for _, name := range []string{crashLWName, crashCOWName, crashLogName} {
		(&devmapper.Device{Name: name}).Remove()
	}
	unmountRAM()
}

// StatesFinish removes what the crash_states campaigns of the step left:
// their results files, devices and mounts.
func StatesFinish(ctx context.Context, e *step.Env) error {
	os.Remove(crashResultsPath(e))
	crashTeardown(e)
	return nil
}
