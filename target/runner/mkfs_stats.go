package runner

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fsbench/fsbench/target/step"
	"golang.org/x/sys/unix"
)

func init() {
	register("mkfs_stats", step.Recipe{Schema: 1, Iterate: mkfsStats})
}

// poolWorker matches the kernel threads of the shared workqueue pools,
// kworker/CPU:N and kworker/uPOOL:N (with "H" for high priority, and on
// Linux 6.x "-workqueue" after the name). The kernel starts and stops them
// on demand whatever mounts, so they do not belong to the filesystem.
// Rescuers are threads of one workqueue: "kworker/R-xfs-buf/loop0" on
// Linux 6.9+, "xfs-buf/loop0" before; they count.
var poolWorker = regexp.MustCompile(`^kworker/u?[0-9]+:[0-9]+H?(-|$)`)

// mkfsStats mounts the step's partition, as fsbench build made it, and
// reports its size and space as statfs (df) sees them, and the kernel
// threads the mount started (seed 000 p.79-80): it lists the children of
// kthreadd before the mount and again `settle` after it, and reports the
// new ones; pool workers are counted apart.
func mkfsStats(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	settleFor := e.P.Duration("settle")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	if e.Part == nil {
		return nil, fmt.Errorf("%s needs a partition", e.Step.ID())
	}
	if e.Part.Root {
		return nil, fmt.Errorf("partition %s is the root filesystem: mkfs_stats must mount and unmount it", e.Part.Name)
	}
	if err := e.UnmountPart(e.Part); err != nil {
		return nil, err
	}
	before, err := kernelThreads("/proc")
	if err != nil {
		return nil, err
	}
	dir, err := e.MountPart(e.Part)
	if err != nil {
		return nil, err
	}
	select {
	case <-time.After(settleFor):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after, err := kernelThreads("/proc")
	if err != nil {
		return nil, err
	}
	var s unix.Statfs_t
	if err := unix.Statfs(dir, &s); err != nil {
		return nil, fmt.Errorf("statfs %s: %w", dir, err)
	}
	if err := e.UnmountPart(e.Part); err != nil {
		return nil, err
	}
	e.ForgetMounts()

	out := &step.Outcome{}
	fsSpace(out, &s)
	added, workers := newKernelThreads(before, after)
	out.Metric("kthreads_added", float64(len(added)), "")
	out.Metric("kworkers_added", float64(workers), "")
	out.Attr("kthreads_new", strings.Join(added, ","))
	return out, nil
}

// fsSpace reports the filesystem's size, used and available space in
// bytes, and how full it is, as df computes it: used over what a user
// could have (used + available), so blocks reserved for root count as
// neither.
func fsSpace(out *step.Outcome, s *unix.Statfs_t) {
	unit := uint64(s.Frsize)
	if unit == 0 {
		unit = uint64(s.Bsize)
	}
	size, used, avail := s.Blocks*unit, (s.Blocks-s.Bfree)*unit, s.Bavail*unit
	out.Metric("fs_size", float64(size), "B")
	out.Metric("fs_used", float64(used), "B")
	out.Metric("fs_avail", float64(avail), "B")
	pct := 0.0
	if used+avail > 0 {
		pct = 100 * float64(used) / float64(used+avail)
	}
	out.Metric("used_percent", pct, "%")
	out.Metric("inodes", float64(s.Files), "")
	out.Metric("inodes_free", float64(s.Ffree), "")
}

// newKernelThreads returns the sorted names of the children of kthreadd in
// after that are not in before, pool workers aside, and how many new pool
// workers there are.
func newKernelThreads(before, after []taskStat) (names []string, workers int) {
	old := map[taskKey]bool{}
	for _, t := range before {
		old[t.key()] = true
	}
	for _, t := range after {
		if old[t.key()] || t.PPID != kthreaddPID {
			continue
		}
		if poolWorker.MatchString(t.Comm) {
			workers++
			continue
		}
		names = append(names, t.Comm)
	}
	slices.Sort(names)
	return names, workers
}
