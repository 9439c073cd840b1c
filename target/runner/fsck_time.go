package runner

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/fsbench/fsbench/target/fsck"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
)

func init() {
	register("fsck_time", step.Recipe{Schema: 1, Iterate: fsckTime, Finish: unfill})
}

// fsckTime times the partition's checker on the unmounted filesystem
// (seed 000 p.81-82), filled once to fill_percent as mount_time fills it.
// Caches are dropped before each check, so that every iteration reads the
// device as a check at boot does, not the block cache the previous one
// left. Real time is taken around fork, exec and wait; user and system
// time are the child's, from wait4's rusage.
func fsckTime(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	force, readOnly := p.Bool("force"), p.Bool("read_only")
	percent, shape := int(p.Int("fill_percent")), p.String("fill")
	if p.Err != nil {
		return nil, p.Err
	}
	if e.Part == nil {
		return nil, fmt.Errorf("%s needs a partition", e.Step.ID())
	}
	if e.Part.Root {
		return nil, fmt.Errorf("partition %s is the root filesystem: fsck_time must check it unmounted", e.Part.Name)
	}
	argv, err := fsck.Argv(e.Part, force, readOnly)
	if err != nil {
		return nil, err
	}
	// Checked before the fill, so a missing checker costs nothing.
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, step.Skipf("fsck_time runs %s, and the image has no such program "+
			"(a busybox userland gets it from Debian; Buildroot and Yocto: add the filesystem's tools package)", argv[0])
	}
	out := &step.Outcome{}
	if err := ensureFill(ctx, e, shape, percent, out); err != nil {
		return nil, err
	}
	if err := e.UnmountPart(e.Part); err != nil {
		return nil, err
	}
	e.ForgetMounts()
	if err := linux.DropCaches(); err != nil {
		return nil, err
	}
	run, err := fsck.Run(ctx, argv)
	if err != nil {
		return nil, err
	}
	verdict, err := fsck.Verdict(argv, run.Code)
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, run.Output)
	}
	out.Metric("fsck_time", run.Real.Seconds(), "s")
	out.Metric("fsck_user", run.User.Seconds(), "s")
	out.Metric("fsck_sys", run.Sys.Seconds(), "s")
	out.Metric("exit_code", float64(run.Code), "")
	out.Attr("checker", strings.Join(argv, " "))
	out.Attr("verdict", verdict)
	return out, nil
}
