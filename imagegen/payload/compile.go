// Package payload is what fsbench build adds to a root filesystem so that
// the image tests itself: the target runner, the compiled test plan
// (package runplan) and a start hook for the image's init system. It also
// writes the same files as an overlay directory and a tarball, for Yocto and
// Buildroot builds that assemble the root filesystem themselves.
//
// Compile is where the host's recipe catalogue meets the wire: each step
// gets its recipe's schema, iteration count, timeout and needs, resolved
// against the partition it runs on. The package never writes outside the
// directory or archive it is given, and never puts a spec value in the
// start hook's script.
package payload

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Compile turns one variant of a sealed plan into the runner's plan.
func Compile(p *plan.Plan, v *plan.Variant) (*runplan.Plan, error) {
	rp := &runplan.Plan{
		Format:      runplan.Format,
		Spec:        p.Spec,
		Fingerprint: p.Fingerprint + "/" + v.Name,
		Variant:     v.Name,
		Board:       runplan.Board{Name: v.Board.Name, Arch: v.Board.Arch, Console: v.Board.Console, Init: v.Board.Init, RootWait: v.Board.RootWait},
		StateDir:    runplan.DefaultState,
	}
	if e := v.Board.Endurance; e != nil {
		rp.Board.Endurance = &runplan.Endurance{Capacity: e.Capacity, PECycles: e.PECycles, OverProvisioning: e.OverProvisioning, WritesPerDay: e.WritesPerDay}
	}
	var root *runplan.Partition
	// The boot image's partitions come first: a name another image
	// shares means the partition the board boots.
	images := slices.Clone(v.Images)
	if boot := v.BootImage(); boot > 0 {
		images = append([]plan.Image{v.Images[boot]}, slices.Delete(images, boot, boot+1)...)
	}
	for _, img := range images {
		for _, part := range img.Partitions {
			if _, dup := rp.Partition(part.Name); dup {
				continue
			}
			rp.Partitions = append(rp.Partitions, partition(v.Board.Storage, part))
			if f := part.Filesystem; part.Root && f != nil && f.Contents != nil {
				rp.Board.Userland = f.Contents.Userland
			}
		}
	}
	for i := range rp.Partitions {
		if rp.Partitions[i].Root {
			root = &rp.Partitions[i]
		}
	}
	if len(v.Tests) > 0 {
		if root == nil {
			return nil, fmt.Errorf("variant %s has tests but no root partition to carry the runner", v.Name)
		}
		state, err := statePartition(rp, v)
		if err != nil {
			return nil, err
		}
		rp.StatePartition = state.Name
	}
	for _, t := range v.Tests {
		on := t.On
		if on == "" && root != nil {
			on = root.Name
		}
		rec, ok := recipes.Lookup(t.Recipe)
		if !ok {
			return nil, fmt.Errorf("variant %s: test %s.%s: no recipe %q", v.Name, t.Recipe, t.Name, t.Recipe)
		}
		part, _ := rp.Partition(on)
		na := v.NotApplicable(t)
		for _, c := range t.Cases {
			s, err := step(rec, t, c, on, part)
			if err != nil {
				return nil, fmt.Errorf("variant %s: test %s.%s/%s: %w", v.Name, t.Recipe, t.Name, c.Name, err)
			}
			if na != "" {
				s.NotApplicable, s.Iterations, s.Settle = na, 1, nil
			}
			rp.Steps = append(rp.Steps, s)
		}
	}
	return rp, nil
}

// step compiles one case with what its recipe needs: the count of its
// results, the timeout of an iteration, the programs it runs (the
// partition's own checker and mkfs among them) and the kernel features.
func step(rec *recipes.Recipe, t plan.Test, c recipes.Case, on string, part *runplan.Partition) (runplan.Step, error) {
	params := runplan.Params(c.Params)
	s := runplan.Step{
		Recipe: t.Recipe, Schema: rec.Schema, Test: t.Name, Case: c.Name, On: on,
		Iterations: 1, Timeout: runplan.Duration(rec.Timeout()), HostTimesBoot: rec.HostTimesBoot, AccountIO: rec.AccountsIO, Params: params,
	}
	if rec.Count != "" && params.Has(rec.Count) {
		n, err := params.Int(rec.Count)
		if err != nil || n < 1 {
			return s, fmt.Errorf("%s is %v, want a count of at least 1", rec.Count, c.Params[rec.Count])
		}
		s.Iterations = int(n)
	}
	if st := t.Settle; st != nil {
		s.Iterations = st.Max
		s.Settle = &runplan.Settle{CI: st.CI, Min: st.Min, Metrics: st.Metrics}
	}
	if params.Has("timeout") {
		d, err := params.Duration("timeout")
		if err != nil {
			return s, err
		}
		s.Timeout = runplan.Duration(d)
	}
	n := &s.Needs
	add := func(list *[]string, names ...string) {
		for _, name := range names {
			if name != "" && !slices.Contains(*list, name) {
				*list = append(*list, name)
			}
		}
	}
	if part != nil && (rec.Needs.Checker || rec.Needs.Mkfs) {
		if rec.Needs.Checker {
			add(&n.Programs, first(part.Check))
		}
		if rec.Needs.Mkfs {
			add(&n.Programs, first(part.Mkfs))
		}
	}
	add(&n.Programs, rec.Needs.Programs...)
	if rec.Needs.CasePrograms != nil {
		add(&n.Programs, rec.Needs.CasePrograms(c.Params)...)
	}
	add(&n.Prefers, rec.Needs.Prefers...)
	for _, k := range rec.Needs.Kernel {
		add(&n.Modules, k.Modules...)
		n.Watchdog = n.Watchdog || k.Watchdog
	}
	return s, nil
}

func first(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// partition is the runner's view of a placed partition.
func partition(storage string, p plan.Partition) runplan.Partition {
	rp := runplan.Partition{
		Name: p.Name, Number: p.Number, Device: DevicePath(storage, p.Number),
		PartUUID: p.UUID, Size: p.Size, Root: p.Root,
	}
	if f := p.Filesystem; f != nil {
		rp.FS, rp.Label, rp.UUID = f.Type, f.Label, f.UUID
		rp.Mountpoint, rp.Flags, rp.Data, rp.ReadOnly = f.Mountpoint, f.VFSFlags, f.RootFlags, f.ReadOnly
		rp.Mkfs = onDevice(f.Mkfs.Argv)
		rp.EraseBlock, rp.PageSize = f.EraseBlock, f.PageSize
		rp.Cleaner = slices.Clone(f.Cleaner)
		rp.CleanerPeriod = slices.Clone(f.CleanerPeriod)
		if f.Check != nil {
			rp.Check = onDevice(f.Check.Argv)
		} else if t, ok := filesystems.Lookup(f.Type); ok {
			rp.NoCheck = t.NoChecker
		}
	}
	return rp
}

// DevicePath is partition n of the disk the kernel calls storage:
// vda -> /dev/vda2, mmcblk0 -> /dev/mmcblk0p2, nvme0n1 -> /dev/nvme0n1p2.
func DevicePath(storage string, n int) string {
	sep := ""
	if s := storage; s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' {
		sep = "p"
	}
	return path.Join("/dev", fmt.Sprintf("%s%s%d", storage, sep, n))
}

// onDevice rewrites a host command line for the target: the partition's
// device takes the place of the image file.
func onDevice(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "{image}", "{device}")
	}
	return out
}

// statePartition picks where the runner keeps its progress: the root
// filesystem when it is writable; otherwise the first writable partition
// that no test may destroy or reformat.
func statePartition(rp *runplan.Plan, v *plan.Variant) (*runplan.Partition, error) {
	risky := map[string]bool{}
	for _, t := range v.Tests {
		if t.On != "" {
			risky[t.On] = true
		}
	}
	if root, _ := rp.Root(); root != nil && root.FS != "" && !root.ReadOnly {
		return root, nil
	}
	for i := range rp.Partitions {
		p := &rp.Partitions[i]
		if p.FS != "" && !p.ReadOnly && !p.Root && !risky[p.Name] {
			return p, nil
		}
	}
	return nil, errors.New("the root filesystem is read-only and no other writable partition is free of tests, so the runner has nowhere to keep its progress; add a small writable partition (e.g. ext4) that no test uses")
}
