package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"golang.org/x/sys/unix"
)

func init() {
	register("mount_time", step.Recipe{Schema: 1, Iterate: mountTime, Finish: unfill})
}

// mountTime times mount(2) of the step's partition, filled to fill_percent
// before the first iteration (ELC 2015 p.69-70). The partition is
// unmounted, caches are dropped, and the mount is timed with the thread's
// own CPU time.
func mountTime(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	percent, shape := int(p.Int("fill_percent")), p.String("fill")
	specify, drop := p.Bool("specify_type"), p.Bool("drop_caches")
	if p.Err != nil {
		return nil, p.Err
	}
	out := &step.Outcome{}
	if err := ensureFill(ctx, e, shape, percent, out); err != nil {
		return nil, err
	}
	if err := e.UnmountPart(e.Part); err != nil {
		return nil, err
	}
	if drop {
		if err := linux.DropCaches(); err != nil {
			return nil, err
		}
	}
	fstype := ""
	if specify {
		fstype = e.Part.FS
	}
	fl, err := linux.FlagsOf(e.Part.Flags)
	if err != nil {
		return nil, err
	}
	dir := e.MountDir(e.Part)
	real, usr, sys, used, err := timeMount(e.Part.Device, dir, fstype, fl, e.Part.Data)
	if err != nil {
		return nil, err
	}
	e.TrackMount(dir)
	// After the timed call: the system's mount helper starts it there.
	e.StartCleaner(e.Part, dir)
	out.Metric("mount_time", real.Seconds(), "s")
	out.Metric("mount_user", usr.Seconds(), "s")
	out.Metric("mount_sys", sys.Seconds(), "s")
	out.Attr("fstype", used)
	return out, nil
}

// ensureFill fills the partition once per step: the first iteration that
// finds no fill mark writes it, later ones (and a resumed step) reuse it.
func ensureFill(ctx context.Context, e *step.Env, shape string, percent int, out *step.Outcome) error {
	var done bool
	if len(e.Scratch) > 0 {
		done = string(e.Scratch) == "true"
	}
	if done || percent == 0 {
		return nil
	}
	dir, err := e.MountPart(e.Part)
	if err != nil {
		return err
	}
	e.Logf("%s: filling %s to %d%% (%s)", e.Step.ID(), e.Part.Name, percent, shape)
	n, err := workload.Fill(ctx, dir, shape, percent)
	if err != nil {
		return fmt.Errorf("filling %s: %w", e.Part.Name, err)
	}
	used, _ := workload.UsedPercent(dir)
	if n == 0 {
		// Space other steps left behind (a log-structured filesystem
		// without its cleaner keeps what fio deleted) counts as used.
		e.Logf("%s: %s is already %.0f%% full, above the %d%% asked for: nothing written, its mount is timed as it is",
			e.Step.ID(), e.Part.Name, used, percent)
	}
	out.Metric("fill_bytes", float64(n), "B")
	out.Metric("fill_used", used, "%")
	if err := e.UnmountPart(e.Part); err != nil {
		return err
	}
	e.ForgetMounts()
	return e.SetScratch(true)
}

// unfill removes the fill data at the end of a step, when a later step
// works on the partition. Otherwise the data stays: deleting thousands of
// files takes minutes on a slow target (nilfs2 under QEMU: 84 s), and a
// later run's fill replaces it.
func unfill(ctx context.Context, e *step.Env) error {
	if !e.UsedLater(e.Part) {
		if string(e.Scratch) != "true" {
			return nil // nothing was filled
		}
		e.Logf("%s: leaving the fill data of %s in /%s: no later step uses the partition", e.Step.ID(), e.Part.Name, workload.FillDir)
		return nil
	}
	dir, err := e.MountPart(e.Part)
	if err != nil {
		return err
	}
	return workload.RemoveFill(dir)
}

// timeMount mounts and measures wall, user and system time of the call on
// a locked thread.
func timeMount(dev, dir, fstype string, flags uintptr, data string) (real, usr, sys time.Duration, used string, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &r0)
	t0 := time.Now()
	used, err = linux.Mount(dev, dir, fstype, flags, data)
	real = time.Since(t0)
	unix.Getrusage(unix.RUSAGE_THREAD, &r1)
	usr = time.Duration(r1.Utime.Nano() - r0.Utime.Nano())
	sys = time.Duration(r1.Stime.Nano() - r0.Stime.Nano())
	return
}
