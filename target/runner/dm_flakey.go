package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/crash"
	"github.com/fsbench/fsbench/target/devmapper"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/runplan"
)

func init() {
	register("dm_flakey", step.Recipe{Schema: 1, Iterate: dmFlakey, Finish: dmFlakeyFinish})
}

// flakeyName is the device-mapper device the recipe creates.
const flakeyName = "fsbench-flakey"

// dmFlakey is one iteration of the seed's corruption study: re-make the
// filesystem, put a dm-flakey device over the partition, mount through it,
// write (a large file or many small ones) and sync while the device
// corrupts, drops or fails I/O on its schedule; then unmount, take the
// device away, mount the partition normally and inspect it: the mount's
// result and messages, the checker's verdict and the files against what
// the writer saw synced.
func dmFlakey(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	fc, err := readFlakeyCase(e)
	if err != nil {
		return nil, err
	}
	table, err := fc.prepare(ctx, e)
	if err != nil {
		return nil, err
	}
	// dm-flakey times its windows from the table's load: the moment
	// before it, so that the count's windows never open late.
	loaded := time.Now()
	dm, err := devmapper.Create(flakeyName, "/dev", []devmapper.Target{table})
	if err != nil {
		return nil, err
	}
	defer dm.Remove()
	faults := crash.WatchFaults(dm.KName, crash.FaultDirections(fc.fault), fc.up, fc.down, loaded)
	out := &step.Outcome{}
	out.Attr("table", "flakey "+table.Params)
	log, err := crash.CreateSyncLog(syncLogPath(e))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	w := newWriter(e, "", workload.Pattern{Salt: fmt.Sprintf("%s/%s/%d", e.Step.Test, e.Step.Case, iter)}, log)
	if e.P.Err != nil {
		return nil, e.P.Err
	}

	since := crash.LastKmsgSeq()
	autoRO, werr := writeThrough(ctx, e, dm.Node, w)
	if werr != nil {
		return nil, werr
	}
	if w.Err != nil {
		out.Attr("write_error", w.Err.Error())
	}
	out.Metric("written_bytes", float64(w.Written), "bytes")
	// From the table's load to the unmount's end: what the fault window
	// had to meet.
	out.Metric("writer_done", time.Since(loaded).Seconds(), "s")
	faulty, windows, ferr := faults.Finish()
	if err := dm.Remove(); err != nil {
		return nil, err
	}
	// The kernel's messages during the faulty run name the dm device;
	// those of the normal remount name the partition.
	faultNotes := crash.NotesFor(mustKmsg(), dm.KName, since)
	in, err := inspectAfterFault(ctx, e, w, out, fc.fsck)
	if err != nil {
		return nil, err
	}
	if autoRO || faultNotes.ReadOnly > 0 {
		in.Class = crash.WorseCons(in.Class, crash.ConsAutoRO)
		out.Attr("auto_ro", "true")
	}
	in.Record(out)
	recordFaults(out, in, faulty, windows, ferr, faultNotes)
	out.Attr("writer", w.Kind)
	e.Logf("%s: %s, data %s (%d I/O while faulty)", e.Step.ID(), in.Class, out.Attrs["data"], faulty)
	return out, nil
}

// flakeyCase is a dm_flakey case's parameters.
type flakeyCase struct {
	fault    string
	up, down time.Duration
	fsck     bool
	features []string
}

func readFlakeyCase(e *step.Env) (flakeyCase, error) {
	p := e.P
	schedule := p.String("schedule")
	fc := flakeyCase{fault: p.String("fault"), up: p.Duration("flap_up"), down: p.Duration("flap_down"), fsck: p.Bool("fsck")}
	after := p.Duration("after")
	fc.features = runplan.FlakeyFeatures(fc.fault, p.Int("corrupt_byte"), p.Int("corrupt_value"), p.Int("corrupt_flags"))
	timeout := p.OptDuration("timeout")
	switch {
	case p.Err != nil:
		return fc, p.Err
	case e.Part == nil:
		return fc, fmt.Errorf("%s needs a partition", e.Step.ID())
	case e.Part.Root:
		return fc, fmt.Errorf("partition %s is the root filesystem: dm_flakey re-makes it", e.Part.Name)
	}
	if schedule == "after" {
		// Faulty from `after` to the end of the run.
		fc.up, fc.down = after, max(timeout, time.Hour)
	}
	return fc, nil
}

// prepare re-makes the partition's filesystem and returns the flakey
// table over it.
func (fc flakeyCase) prepare(ctx context.Context, e *step.Env) (devmapper.Target, error) {
	if err := e.UnmountPart(e.Part); err != nil {
		return devmapper.Target{}, err
	}
	e.ForgetMounts()
	if err := crash.Remake(ctx, e.Part); errors.Is(err, crash.ErrNoMkfs) {
		return devmapper.Target{}, step.Skipf("dm_flakey re-makes the filesystem before each run: %v", err)
	} else if err != nil {
		return devmapper.Target{}, err
	}
	sectors, err := linux.BlockSectors(e.Part.Device)
	if err != nil {
		return devmapper.Target{}, err
	}
	return devmapper.FlakeyTable(e.Part.Device, sectors, int(fc.up/time.Second), int(fc.down/time.Second), fc.features)
}

// inspectAfterFault mounts the partition normally, checks the writer's
// files against the sync log and, with fsck, runs the checker; it returns
// the classified inspection, with the fault's own kernel errors not
// counted against the remount.
func inspectAfterFault(ctx context.Context, e *step.Env, w *workload.Writer, out *step.Outcome, fsck bool) (*crash.Inspection, error) {
	in := &crash.Inspection{}
	mnt, err := crash.MountInspect(ctx, e, e.Part, crash.SinceSeq(crash.LastKmsgSeq()), in)
	if err != nil {
		return nil, err
	}
	synced, err := crash.ReadSyncLog(syncLogPath(e))
	if err != nil {
		return nil, err
	}
	if mnt != "" {
		w.Dir = e.WorkDirIn(mnt)
		rep, err := checkDataIn(w, synced)
		if err != nil {
			return nil, err
		}
		rep.Record(out)
		if err := e.UnmountPart(e.Part); err != nil {
			return nil, err
		}
		e.ForgetMounts()
	} else {
		out.Attr("data", crash.DataLostSynced)
		out.Attr("data_problems", "the filesystem does not mount")
	}
	if fsck && in.MountErr == nil {
		if err := crash.CheckAndRepair(ctx, e, e.Part, in); err != nil {
			return nil, err
		}
	}
	in.Classify()
	// Errors the kernel logged while the device was faulty are the
	// fault's, not the recovery's: they do not make the remount "Errors".
	if in.Class == crash.ConsErrors {
		in.Class = crash.ConsClean
		if in.Notes.Recovery > 0 {
			in.Class = crash.ConsAutoFix
		}
	}
	return in, nil
}

// recordFaults adds what the fault met: the faulty I/O counted, or why
// the iteration measured nothing, and the kernel's messages meanwhile.
func recordFaults(out *step.Outcome, in *crash.Inspection, faulty uint64, windows int, ferr error, notes *crash.KernelNotes) {
	switch {
	case ferr != nil:
		out.Attr("faulty_ios", "unknown: "+ferr.Error())
	case faulty == 0:
		// Nothing reached the faulty table: this iteration tells
		// nothing of how the filesystem survives a fault.
		out.Metric("faulty_ios", 0, "")
		out.Attr("consistency_without_fault", in.Class)
		out.Attr("consistency", crash.ConsNoFault)
		out.Attr("data", crash.DataNoFault)
		why := "the writer and the unmount were done before the device turned faulty"
		if windows > 0 {
			why = "no I/O reached the device while it was faulty"
		}
		out.Attr("no_fault", why)
		in.Class = crash.ConsNoFault
	default:
		out.Metric("faulty_ios", float64(faulty), "")
	}
	out.Metric("fault_kernel_errors", float64(notes.Errors), "")
	if len(notes.Lines) > 0 {
		out.Attr("fault_kernel_log", strings.Join(notes.Lines, " | "))
	}
}

// writeThrough mounts the flakey device, runs the writer once and
// unmounts. It reports whether the filesystem had turned read-only.
func writeThrough(ctx context.Context, e *step.Env, node string, w *workload.Writer) (autoRO bool, err error) {
	dir := e.MountDir(e.Part)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	fl, err := linux.FlagsOf(e.Part.Flags)
	if err != nil {
		return false, err
	}
	if _, err := linux.Mount(node, dir, e.Part.FS, fl, e.Part.Data); err != nil {
		// A device faulty from the start may not even mount; that is
		// the remount's business to judge.
		w.Keep(fmt.Errorf("mounting through dm-flakey: %w", err))
		return false, nil
	}
	through := *e.Part
	through.Device = node
	e.StartCleaner(&through, dir)
	w.Dir = e.WorkDirIn(dir)
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		w.Keep(err)
	} else if err := w.Once(ctx); err != nil {
		linux.UnmountWithin(dir, time.Minute)
		return false, err
	}
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) == nil && st.Flags&unix.ST_RDONLY != 0 {
		autoRO = true
	}
	if errors.Is(w.Err, unix.EROFS) {
		autoRO = true
	}
	if err := linux.UnmountWithin(dir, 2*time.Minute); err != nil {
		return autoRO, err
	}
	return autoRO, nil
}

func mustKmsg() []linux.KmsgRecord {
	recs, _ := linux.ReadKmsg()
	return recs
}

func dmFlakeyFinish(ctx context.Context, e *step.Env) error {
	os.Remove(syncLogPath(e))
	(&devmapper.Device{Name: flakeyName}).Remove()
	return nil
}
