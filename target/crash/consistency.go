package crash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/target/fsck"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Consistency classes: how the filesystem came back after a power cut or
// a fault, from best to worst. They are the seed study's outcome bars.
const (
	ConsClean   = "Clean"   // mounted, nothing reported, checker clean
	ConsAutoRO  = "AutoRO"  // it went read-only by itself during the fault (dm_flakey)
	ConsAutoFix = "AutoFix" // the mount recovered it (journal replay, roll-forward)
	ConsErrors  = "Errors"  // mounted, but the kernel logged errors or warnings for it
	ConsFsck    = "Fsck"    // its checker found errors, or it mounted only after a repair
	ConsFatal   = "Fatal"   // it does not mount, even after the checker's repair
	// ConsNoFault is no class of survival: no I/O met the fault
	// (dm_flakey), so the iteration measured nothing.
	ConsNoFault = "NoFault"
)

var consRank = map[string]int{ConsClean: 0, ConsAutoRO: 1, ConsAutoFix: 2, ConsErrors: 3, ConsFsck: 4, ConsFatal: 5}

// WorseCons returns the worse of two consistency classes.
func WorseCons(a, b string) string {
	if consRank[b] > consRank[a] {
		return b
	}
	return a
}

// recoveryLine matches the kernel's messages of a filesystem repairing
// itself at mount: ext4 "recovery complete" and orphan cleanup, xfs
// "Starting recovery", btrfs log replay, f2fs roll-forward recovery,
// nilfs2 "recovery complete"/"salvaged".
var recoveryLine = regexp.MustCompile(`(?i)recovery complete|orphan cleanup|starting recovery|ending recovery|replaying log|recover fsync data|roll.?forward|salvaged|fixing|repaired|recovered`)

// readOnlyLine matches a filesystem turning itself read-only after an
// error.
var readOnlyLine = regexp.MustCompile(`(?i)remounting filesystem read-only|read-only|forced shutdown|shutting down filesystem|forcing readonly|emergency`)

// KernelNotes are the kernel log records about one device since a point.
type KernelNotes struct {
	Errors, Warnings, Recovery, ReadOnly int
	Lines                                []string
}

// deviceLog collects the kernel log records that name dev (by its base
// name, e.g. "vdb3" in "EXT4-fs (vdb3): ..."), after sequence number
// since (-1: the whole log).
func deviceLog(dev string, since int64) (*KernelNotes, error) {
	recs, err := linux.ReadKmsg()
	if err != nil {
		return nil, err
	}
	return NotesFor(recs, linux.BlockName(dev), since), nil
}

// NotesFor sorts the records about the device name after sequence number
// since (-1: all of them) into errors, warnings and recovery lines.
func NotesFor(recs []linux.KmsgRecord, name string, since int64) *KernelNotes {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9])` + regexp.QuoteMeta(name) + `([^0-9]|$)`)
	n := &KernelNotes{}
	for _, r := range recs {
		if r.Seq <= since || !re.MatchString(r.Msg) {
			continue
		}
		switch {
		case r.Level <= 3:
			n.Errors++
		case r.Level == 4:
			n.Warnings++
		}
		if recoveryLine.MatchString(r.Msg) {
			n.Recovery++
		}
		if readOnlyLine.MatchString(r.Msg) {
			n.ReadOnly++
		}
		if r.Level <= 4 || recoveryLine.MatchString(r.Msg) {
			if len(n.Lines) < 6 {
				n.Lines = append(n.Lines, r.Msg)
			}
		}
	}
	return n
}

// LastKmsgSeq is the sequence number of the newest kernel log record.
func LastKmsgSeq() int64 {
	recs, err := linux.ReadKmsg()
	if err != nil || len(recs) == 0 {
		return -1
	}
	return recs[len(recs)-1].Seq
}

// Inspection is what the runner learnt of a filesystem after a cut or
// a fault.
type Inspection struct {
	MountErr   error
	MountedBy  string // "init" when the boot mounted it, "runner"
	Notes      *KernelNotes
	Checker    string // the argv, or why there is none
	CheckCode  int
	CheckClean bool
	Checked    bool
	Repaired   bool // a failed mount succeeded after the repair
	Class      string
}

// Record adds the inspection to an outcome.
func (in *Inspection) Record(out *step.Outcome) {
	out.Attr("consistency", in.Class)
	out.Metric("mount_errno", float64(linux.Errno(in.MountErr)), "")
	if in.MountErr != nil {
		out.Attr("mount_error", in.MountErr.Error())
	}
	if in.MountedBy != "" {
		out.Attr("mounted_by", in.MountedBy)
	}
	out.Metric("kernel_errors", float64(in.Notes.Errors), "")
	out.Metric("kernel_warnings", float64(in.Notes.Warnings), "")
	out.Metric("kernel_recovery", float64(in.Notes.Recovery), "")
	if len(in.Notes.Lines) > 0 {
		out.Attr("kernel_log", strings.Join(in.Notes.Lines, " | "))
	}
	out.Attr("checker", in.Checker)
	if in.Checked {
		out.Metric("fsck_exit", float64(in.CheckCode), "")
		out.Attr("fsck", map[bool]string{true: "clean", false: "errors"}[in.CheckClean])
	} else {
		out.Attr("fsck", "not run")
	}
	if in.Repaired {
		out.Attr("repaired", "true")
	}
}

// Classify sets the class from what was seen.
func (in *Inspection) Classify() {
	c := ConsClean
	switch {
	case in.MountErr != nil && !in.Repaired:
		c = ConsFatal
	case in.MountErr != nil || (in.Checked && !in.CheckClean):
		c = ConsFsck
	case in.Notes.Errors+in.Notes.Warnings > 0 && in.Notes.Recovery < in.Notes.Errors+in.Notes.Warnings:
		c = ConsErrors
	case in.Notes.Recovery > 0:
		c = ConsAutoFix
	}
	in.Class = c
}

// CheckAndRepair runs the partition's checker read-only on the unmounted
// filesystem and, when it finds errors, lets it repair them so the next
// iteration starts from a sound filesystem. A missing checker is said, not
// faked: nilfs2 has none, and a board may lack the tool.
func CheckAndRepair(ctx context.Context, e *step.Env, p *runplan.Partition, in *Inspection) error {
	argv, err := fsck.Argv(p, true, true)
	if err != nil {
		in.Checker = "none: " + err.Error()
		return nil
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		in.Checker = fmt.Sprintf("none: %s is not on this target", argv[0])
		return nil
	}
	in.Checker = strings.Join(argv, " ")
	run, err := fsck.Run(ctx, argv)
	if err != nil {
		return err
	}
	in.Checked, in.CheckCode = true, run.Code
	// Read-only, any exit but 0 means it found something to fix.
	in.CheckClean = run.Code == 0
	if in.CheckClean {
		return nil
	}
	return repair(ctx, e, p)
}

// repair runs the checker in repair mode; its verdict is only logged.
func repair(ctx context.Context, e *step.Env, p *runplan.Partition) error {
	argv, err := fsck.Argv(p, true, false)
	if err != nil {
		return nil
	}
	if kind := fsck.Kind(argv); kind == "e2fsck" {
		// -p refuses what needs a human; the runner has none.
		for i, a := range argv {
			if a == "-fp" {
				argv[i] = "-fy"
			}
		}
	}
	run, err := fsck.Run(ctx, argv)
	if err != nil {
		return err
	}
	e.Logf("%s: repair %s: exit %d", e.Step.ID(), strings.Join(argv, " "), run.Code)
	return nil
}

// kernelLog returns the kernel's messages about a device since some
// point: sinceSeq's, or a kmsgCursor's.
type kernelLog func(dev string) (*KernelNotes, error)

// cursorLog is the kernel log after the cursor c was opened.
func cursorLog(c *linux.KmsgCursor) kernelLog {
	return func(dev string) (*KernelNotes, error) {
		recs, err := c.Read()
		if err != nil {
			return nil, err
		}
		return NotesFor(recs, linux.BlockName(dev), -1), nil
	}
}

// SinceSeq is the kernel log after record seq (-1: all of it).
func SinceSeq(seq int64) kernelLog {
	return func(dev string) (*KernelNotes, error) { return deviceLog(dev, seq) }
}

// MountInspect mounts the partition (unless the boot did), noting the
// kernel's messages from klog; when the mount fails it repairs and tries
// once more. It returns the mount directory, "" when it did not mount.
func MountInspect(ctx context.Context, e *step.Env, p *runplan.Partition, klog kernelLog, in *Inspection) (string, error) {
	at, err := linux.MountedAt(p.Device)
	if err != nil {
		return "", err
	}
	dir := ""
	if len(at) > 0 {
		in.MountedBy, dir = "init", at[0]
	} else {
		in.MountedBy = "runner"
		dir, in.MountErr = e.MountPart(p)
	}
	if in.Notes, err = klog(p.Device); err != nil {
		return "", err
	}
	if in.MountErr == nil {
		return dir, nil
	}
	e.Logf("%s: mount failed: %v; repairing", e.Step.ID(), in.MountErr)
	if err := CheckAndRepair(ctx, e, p, in); err != nil {
		return "", err
	}
	if !in.Checked {
		return "", nil
	}
	if dir, err := e.MountPart(p); err == nil {
		in.Repaired = true
		return dir, nil
	}
	return "", nil
}

var ErrNoMkfs = errors.New("no mkfs")

// Remake re-creates the partition's filesystem with the plan's mkfs
// command, for a filesystem left unusable (or, for dm_flakey, before every
// iteration).
func Remake(ctx context.Context, p *runplan.Partition) error {
	if len(p.Mkfs) == 0 {
		return fmt.Errorf("%w: the plan has no mkfs command for partition %s", ErrNoMkfs, p.Name)
	}
	argv, err := targetMkfs(p)
	if err != nil {
		return err
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return fmt.Errorf("%w: %s is not on this target", ErrNoMkfs, argv[0])
	}
	if err := wipeStart(p.Device); err != nil {
		return err
	}
	run, err := fsck.Run(ctx, argv)
	if err != nil {
		return err
	}
	if run.Code != 0 {
		return fmt.Errorf("%s: exit %d\n%s", strings.Join(argv, " "), run.Code, run.Output)
	}
	return nil
}

// targetMkfs is the plan's mkfs command for the target: the device for
// {device}, the time for {epoch} (the build's reproducible timestamp has
// no meaning here), and without the options that fill the filesystem
// from the build host's tree ({root}), which the target does not have.
func targetMkfs(p *runplan.Partition) ([]string, error) {
	var argv []string
	for i := 0; i < len(p.Mkfs); i++ {
		a := p.Mkfs[i]
		if i+1 < len(p.Mkfs) && p.Mkfs[i+1] == "{root}" {
			i++ // "-d {root}", "--rootdir {root}"
			continue
		}
		a = strings.ReplaceAll(a, "{device}", p.Device)
		a = strings.ReplaceAll(a, "{epoch}", strconv.FormatInt(time.Now().Unix(), 10))
		if strings.Contains(a, "{") {
			return nil, fmt.Errorf("%w: the plan's mkfs command needs a file of the build host (%s)", ErrNoMkfs, a)
		}
		argv = append(argv, a)
	}
	return argv, nil
}

// wipeStart zeroes the first MiB of dev, as wipefs would the old
// signatures: mkfs.btrfs refuses to re-make a filesystem with the plan's
// UUID while blkid still finds that UUID on the device itself.
func wipeStart(dev string) error {
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, 1<<20), 0); err != nil {
		return fmt.Errorf("wiping %s: %w", dev, err)
	}
	return f.Sync()
}
