package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsbench/fsbench/target/crash"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/runplan"
)

func init() {
	register("power_loss", step.Recipe{Schema: 1, Iterate: powerLoss, Finish: powerLossFinish})
}

// powerLossScratch is what an iteration keeps across its power cut.
type powerLossScratch struct {
	Iter    int    `json:"iter"`
	Boot    string `json:"boot"` // the boot the cut was armed in
	Salt    string `json:"salt"`
	Reset   string `json:"reset"` // how the power was cut
	Written int64  `json:"written,omitempty"`
}

// powerLoss is one iteration in two halves on either side of a reset.
// The first half mounts the partition in the case's mode, arms the cut
// (the watchdog, or the host's power switch) and writes until the power
// goes. The second half, in the next boot, looks at how the filesystem
// came back: the mount's result and the kernel's messages about it, the
// checker's verdict, and the files against the sync log.
func powerLoss(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	var sc powerLossScratch
	if len(e.Scratch) > 0 {
		if err := json.Unmarshal(e.Scratch, &sc); err != nil {
			return nil, fmt.Errorf("step data: %w", err)
		}
	}
	if e.Part == nil {
		return nil, fmt.Errorf("%s needs a partition", e.Step.ID())
	}
	if e.Part.Root {
		return nil, fmt.Errorf("partition %s is the root filesystem: power_loss must mount and check it", e.Part.Name)
	}
	if sc.Iter == iter && sc.Boot != "" && sc.Boot != e.BootID {
		return powerLossCheck(ctx, e, sc)
	}
	return nil, powerLossWrite(ctx, e, iter)
}

func syncLogPath(e *step.Env) string {
	return filepath.Join(e.StateDir, "synced-"+step.SafeName(e.Step.Test+"-"+e.Step.Case)+".log")
}

func newWriter(e *step.Env, dir string, pat workload.Pattern, log *crash.SyncLog) *workload.Writer {
	w := &workload.Writer{Dir: dir, Pattern: pat, Log: log,
		Kind: e.P.String("writer"), Small: e.P.Int("small_file_size"),
		Large: e.P.Int("large_file_size"), Count: int(e.P.Int("small_files"))}
	return w
}

func powerLossWrite(ctx context.Context, e *step.Env, iter int) error {
	mode, trigger := e.P.String("mount"), e.P.String("trigger")
	cut := e.P.Duration("cut_after")
	if e.P.Err != nil {
		return e.P.Err
	}
	if err := e.UnmountPart(e.Part); err != nil {
		return err
	}
	var extra []string
	if mode == "sync" {
		extra = []string{"sync"}
	}
	mnt, err := e.MountPart(e.Part, extra...)
	if err != nil {
		return fmt.Errorf("mounting %s %s: %w", e.Part.Name, mode, err)
	}
	dir := e.WorkDirIn(mnt)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := linux.SyncFS(dir); err != nil {
		return err
	}
	log, err := crash.CreateSyncLog(syncLogPath(e))
	if err != nil {
		return err
	}
	defer log.Close()
	sc := powerLossScratch{Iter: iter, Boot: e.BootID, Salt: fmt.Sprintf("%s/%s/%d/%s", e.Step.Test, e.Step.Case, iter, e.BootID)}
	w := newWriter(e, dir, workload.Pattern{Salt: sc.Salt}, log)
	if e.P.Err != nil {
		return e.P.Err
	}

	var wd *watchdog
	switch trigger {
	case "watchdog":
		sc.Reset = "watchdog"
	case "host_kill":
		sc.Reset = "host power cut"
	default:
		return fmt.Errorf("unknown trigger %q", trigger)
	}
	// The scratch must be durable before the cut is armed: it is how the
	// next boot knows that this iteration's power was cut.
	if err := e.SetScratch(sc); err != nil {
		return err
	}
	if err := e.SaveScratch(); err != nil {
		return err
	}
	if trigger == "watchdog" {
		if wd, err = armWatchdog(cut); err != nil {
			return err
		}
		sc.Reset = "watchdog reset (" + wd.identity + ")"
		if err := e.SetScratch(sc); err == nil {
			err = e.SaveScratch()
		}
		if err != nil {
			wd.disarm()
			return err
		}
		e.Logf("%s: watchdog %q armed, reset in %s; writing %s", e.Step.ID(), wd.identity, wd.timeout, w.Kind)
	} else {
		e.Logf("%s: writing %s; asking for a power cut", e.Step.ID(), w.Kind)
		e.Printf("%s %d", runplan.PowerCutMarker, int(cut/time.Second))
	}
	// The power should go within the cut time; give it a minute more.
	wctx, cancel := context.WithTimeout(ctx, cut+time.Minute)
	defer cancel()
	werr := w.UntilCut(wctx)
	if wd != nil {
		wd.disarm()
	}
	if werr != nil && wctx.Err() == nil {
		return fmt.Errorf("writing before the cut: %w", werr)
	}
	return fmt.Errorf("no reset came %s after arming the %s (wrote %d bytes)", cut+time.Minute, trigger, w.Written)
}

// powerLossCheck is the second half of an iteration, after the reset.
func powerLossCheck(ctx context.Context, e *step.Env, sc powerLossScratch) (*step.Outcome, error) {
	out := &step.Outcome{}
	out.Attr("reset", sc.Reset)
	out.Attr("trigger", e.P.String("trigger"))
	checkData, fsck := e.P.Bool("data_check"), e.P.Bool("fsck")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	in := &crash.Inspection{}
	mnt, err := crash.MountInspect(ctx, e, e.Part, crash.SinceSeq(-1), in)
	if err != nil {
		return nil, err
	}
	synced, err := crash.ReadSyncLog(syncLogPath(e))
	if err != nil {
		return nil, err
	}
	if mnt != "" && checkData {
		w := newWriter(e, e.WorkDirIn(mnt), workload.Pattern{Salt: sc.Salt}, nil)
		rep, err := checkDataIn(w, synced)
		if err != nil {
			return nil, err
		}
		rep.Record(out)
	} else if checkData {
		out.Attr("data", crash.DataLostSynced)
		out.Attr("data_problems", "the filesystem does not mount")
	}
	if mnt != "" {
		os.RemoveAll(e.WorkDirIn(mnt))
		if err := e.UnmountPart(e.Part); err != nil {
			return nil, err
		}
		e.ForgetMounts()
	}
	if fsck && in.MountErr == nil {
		if err := crash.CheckAndRepair(ctx, e, e.Part, in); err != nil {
			return nil, err
		}
	} else if !fsck && !in.Checked {
		in.Checker = "not run (fsck = false)"
	}
	in.Classify()
	if in.Class == crash.ConsFatal {
		if err := crash.Remake(ctx, e.Part); err != nil {
			e.Logf("%s: the filesystem is lost and cannot be re-made: %v", e.Step.ID(), err)
		} else {
			e.Logf("%s: the filesystem was lost; re-made it for the next iteration", e.Step.ID())
		}
	}
	in.Record(out)
	out.Attr("writer", e.P.String("writer"))
	out.Attr("mount", e.P.String("mount"))
	e.Logf("%s: %s, data %s", e.Step.ID(), in.Class, out.Attrs["data"])
	return out, nil
}

func checkDataIn(w *workload.Writer, synced map[string]int64) (*crash.DataReport, error) {
	return crash.CheckData(w.Dir, w.Pattern, synced, w.Intended)
}

func powerLossFinish(ctx context.Context, e *step.Env) error {
	os.Remove(syncLogPath(e))
	if e.Part == nil {
		return nil
	}
	mnt, err := e.MountPart(e.Part)
	if err != nil {
		return nil
	}
	return os.RemoveAll(e.WorkDirIn(mnt))
}
