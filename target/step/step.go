// Package step is what a recipe sees of the runner while one step of the
// plan runs: the plan, the step and its parameters, the partition it is
// on, mounting that partition as the plan says (with the cleaner daemon
// some filesystems need beside a mount), a work directory inside it, the
// step's data kept across reboots, and the console. Env is built by the
// runner for each iteration; Outcome is what the iteration measured;
// Recipe is the target side of one kind of test.
//
// It sits between the runner's engine and the packages its recipes use
// (package crash takes an Env), so that neither has to import the other.
package step

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/measure"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Recipe is the target side of one kind of test. The runner owns the loop
// over iterations, the state file and the output; a recipe only measures.
// The host's catalogue (package recipes) holds the same recipe under the
// same name, with what it needs and how its results are read; the plan
// tells the runner how many iterations each step has and how long one may
// take.
type Recipe struct {
	// Schema is the version of the recipe's parameters and results this
	// runner implements; it must equal the host catalogue's, which the
	// plan writes into every step.
	Schema int
	// Iterate runs iteration iter (from 1) and returns its outcome. It
	// may be called again for the same iteration after a reboot or a power
	// cut in the middle, so it must not rely on work of an earlier call
	// having finished.
	Iterate func(ctx context.Context, e *Env, iter int) (*Outcome, error)
	// Finish cleans up after the last iteration (fill data, scratch
	// directories). It may run more than once; nil when there is nothing.
	Finish func(ctx context.Context, e *Env) error
}

// Outcome is what an iteration measured.
type Outcome struct {
	measure.Set
	// Reboot asks for a reboot before this iteration runs: the runner
	// records nothing and calls Iterate again after the boot.
	Reboot bool
	// RebootAfter asks for a reboot after this iteration's result, unless
	// it was the step's last.
	RebootAfter bool
	// DayShare, when above 0, is the share of a day of the device's life
	// the iteration replayed (endurance): the write accounting then adds
	// its figures scaled to a day.
	DayShare float64
	// AsyncWriteBytes are the bytes the workload wrote with asynchronous
	// I/O (libaio, io_uring), which the write accounting's count of
	// write(2) bytes misses and adds from here.
	AsyncWriteBytes int64
}

// Env is what a recipe sees of the runner.
type Env struct {
	Plan *runplan.Plan
	Step runplan.Step
	Part *runplan.Partition // the partition `on` names; nil when none
	P    *runplan.Reader
	// FreshBoot is true when nothing ran in this boot before this step's
	// iteration (boot_time needs it).
	FreshBoot bool
	// Scratch is the step's data kept across reboots; a recipe sets it
	// with SetScratch and the runner saves it with the state.
	Scratch json.RawMessage
	// BootID is the kernel's id of the current boot.
	BootID string
	// StateDir is the runner's state directory, outside the filesystems
	// under test as long as they are not the root.
	StateDir string
	// Later are the plan's steps after this one.
	Later []runplan.Step
	// Log writes a progress line to the console, Print a line as it is,
	// and Saver makes the step's scratch durable: the runner's.
	Log    func(format string, args ...any)
	Print  func(line string)
	Saver  func(scratch json.RawMessage) error
	mounts []string
	// cleaners are the garbage collectors started beside the step's
	// mounts (cleaner.go), for the result; noCleaner starts none.
	cleaners  []string
	noCleaner bool
}

// Printf writes a line to the console as it is, without the runner's
// prefix, for lines the host acts on.
func (e *Env) Printf(format string, args ...any) {
	if e.Print != nil {
		e.Print(fmt.Sprintf(format, args...))
	}
}

// SaveScratch makes the step's scratch durable now, before something that
// may not return (a power cut).
func (e *Env) SaveScratch() error {
	if e.Saver == nil {
		return errors.New("the step's data cannot be saved here")
	}
	return e.Saver(e.Scratch)
}

// UsedLater reports whether a step after this one may work on p: a step
// on p, or any step when p is the root, where every step keeps its state.
func (e *Env) UsedLater(p *runplan.Partition) bool {
	if p.Root {
		return true
	}
	for _, s := range e.Later {
		if s.On == p.Name {
			return true
		}
	}
	return false
}

// Logf writes a progress line to the console.
func (e *Env) Logf(format string, args ...any) { e.Log(format, args...) }

// SetScratch keeps v for later calls of this step, across reboots.
func (e *Env) SetScratch(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.Scratch = b
	return nil
}

// MountDir is where the runner mounts a partition it tests.
func (e *Env) MountDir(p *runplan.Partition) string {
	if p.Mountpoint != "" {
		return p.Mountpoint
	}
	return filepath.Join("/mnt/fsbench", p.Name)
}

// MountPart mounts the partition with its plan's options (plus extra VFS
// flags) on its mount point, unless it is mounted already, and returns the
// directory. A partition the runner mounted is unmounted after the step.
func (e *Env) MountPart(p *runplan.Partition, extra ...string) (string, error) {
	if p.Root {
		// A system with a nilfs2 root runs its cleaner too.
		e.StartCleaner(p, "/")
		return "/", nil
	}
	if at, err := linux.MountedAt(p.Device); err != nil {
		return "", err
	} else if len(at) > 0 && len(extra) == 0 {
		e.StartCleaner(p, at[0])
		return at[0], nil
	}
	dir := e.MountDir(p)
	fl, err := linux.FlagsOf(append(append([]string(nil), p.Flags...), extra...))
	if err != nil {
		return "", err
	}
	if _, err := linux.Mount(p.Device, dir, p.FS, fl, p.Data); err != nil {
		return "", err
	}
	e.TrackMount(dir)
	e.StartCleaner(p, dir)
	return dir, nil
}

// StartCleaner starts the partition's cleaner beside a mount a test
// writes to, as the system's mount helper would, and keeps what to record
// of it for the result. A state mounted only to be checked (crash_states)
// goes without.
func (e *Env) StartCleaner(p *runplan.Partition, dir string) {
	if e.noCleaner || p.ReadOnly {
		return
	}
	if note := linux.StartCleaner(p, p.Device, dir); note != "" && !slices.Contains(e.cleaners, note) {
		e.cleaners = append(e.cleaners, note)
	}
}

// UnmountPart unmounts every mount of the partition.
func (e *Env) UnmountPart(p *runplan.Partition) error {
	if p.Root {
		return fmt.Errorf("partition %s is the root filesystem; it cannot be unmounted", p.Name)
	}
	at, err := linux.MountedAt(p.Device)
	if err != nil {
		return err
	}
	for i := len(at) - 1; i >= 0; i-- {
		if err := linux.Unmount(at[i]); err != nil {
			return err
		}
	}
	return nil
}

// WorkDir returns an empty directory for the step inside the filesystem of
// its partition, mounting it when needed.
func (e *Env) WorkDir() (string, error) {
	w, err := e.workDirPath()
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(w); err != nil {
		return "", err
	}
	return w, os.MkdirAll(w, 0o755)
}

// KeptWorkDir is WorkDir with what an earlier iteration of the step left
// in it; the step's Finish removes it.
func (e *Env) KeptWorkDir() (string, error) {
	w, err := e.workDirPath()
	if err != nil {
		return "", err
	}
	return w, os.MkdirAll(w, 0o755)
}

// workDirPath is the step's directory in its partition's filesystem.
func (e *Env) workDirPath() (string, error) {
	if e.Part == nil {
		return "", fmt.Errorf("%s needs a partition", e.Step.ID())
	}
	dir, err := e.MountPart(e.Part)
	if err != nil {
		return "", err
	}
	if e.Part.Root {
		dir = "/var/tmp"
	}
	return e.WorkDirIn(dir), nil
}

// WorkDirIn is the step's work directory in the filesystem mounted at
// mnt.
func (e *Env) WorkDirIn(mnt string) string {
	return filepath.Join(mnt, "fsbench-"+SafeName(e.Step.Test+"-"+e.Step.Case))
}

// SafeName is s as one path element of a file name.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// TrackMount records a mount of the step's that the runner unmounts
// after it.
func (e *Env) TrackMount(dir string) { e.mounts = append(e.mounts, dir) }

// ForgetMounts forgets the step's mounts: the recipe unmounted them
// itself, or took their partition away.
func (e *Env) ForgetMounts() { e.mounts = nil }

// CleanerNotes are the cleaners started beside the step's mounts, for
// its result.
func (e *Env) CleanerNotes() []string { return e.cleaners }

// NoCleanerStarts says that no cleaner is started beside this Env's
// mounts.
func (e *Env) NoCleanerStarts() bool { return e.noCleaner }

// ForWorker returns a copy of e for a worker that mounts partitions of
// its own beside the step's (a crash_states worker, one state at a
// time): with no mounts yet, and no cleaner beside them, since a state
// mounted only to be checked has nothing to reclaim.
func (e *Env) ForWorker() *Env {
	w := *e
	w.mounts, w.cleaners, w.noCleaner = nil, nil, true
	return &w
}

// Cleanup unmounts what the step mounted; the runner calls it after each
// iteration.
func (e *Env) Cleanup() {
	for i := len(e.mounts) - 1; i >= 0; i-- {
		if err := linux.Unmount(e.mounts[i]); err != nil && e.Log != nil {
			e.Logf("%s: %v", e.Step.ID(), err)
		}
	}
	e.ForgetMounts()
}

// Quiesce writes out what the filesystem on the partition holds dirty
// (syncfs: the previous step's deletions, a pending journal commit), then
// waits until the device has written nothing for two seconds, at most a
// minute, so that background work a mount starts (ext4lazyinit zeroing
// inode tables, btrfs and f2fs housekeeping) does not skew the
// measurement that follows. Without the syncfs, dirty data would go out
// when the kernel's timers say (a journal commit every 5 s, data after
// 30 s), perhaps during the measurement. It says so when the device never
// went quiet and lets the measurement go on.
func (e *Env) Quiesce() {
	if e.Part == nil {
		return
	}
	dir := "/"
	if !e.Part.Root {
		at, _ := linux.MountedAt(e.Part.Device)
		dir = ""
		if len(at) > 0 {
			dir = at[0]
		}
	}
	if dir != "" {
		if err := linux.SyncFS(dir); err != nil {
			e.Logf("%s: syncfs %s: %v", e.Step.ID(), dir, err)
		}
	}
	waited, err := linux.Settle(e.Part.Device, 2*time.Second, time.Minute)
	switch {
	case err != nil:
		e.Logf("%s: %v; measuring anyway", e.Step.ID(), err)
	case waited > 5*time.Second:
		e.Logf("%s: waited %s for %s to go quiet", e.Step.ID(), waited.Round(time.Second), e.Part.Device)
	}
}

// SkipError is a test that cannot run on this target; the result says
// skipped, with the reason, rather than failed.
type SkipError struct{ msg string }

// Error is the reason the test cannot run.
func (e *SkipError) Error() string { return e.msg }

// Skipf returns the error of a test that cannot run on this target.
func Skipf(format string, args ...any) error { return &SkipError{fmt.Sprintf(format, args...)} }
