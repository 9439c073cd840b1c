package crash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsbench/fsbench/target/devmapper"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
)

// The update test records an A/B update the way crash_states records a
// workload, with one difference: the update writes several partitions
// (both slots, the bootloader's environment, the data partition), and a
// power cut stops them all at the same instant. So the partitions are
// concatenated by a linear device ("the medium"), one dm-log-writes
// device records the medium, and linear devices over it stand for each
// partition while the update runs: every state of the log is every
// partition at one instant. The runner then replays the medium and judges
// each state as the board would boot it (update_judge.go).

const (
	updMediumName = "fsbench-upd-medium"
	updPrefix     = "fsbench-upd-"
	updRunDir     = "/run/fsbench-update"
)

// updRegion is one partition of the medium.
type updRegion struct {
	field string // the test's field that names it: slot_a, slot_b, env, or "on"
	part  *runplan.Partition
	off   int64 // bytes into the medium
	size  int64
	node  string // its device over the log-writes device while recording
}

// updateCampaign is one iteration of an update test.
type updateCampaign struct {
	*crashCampaign
	regions         []*updRegion
	dir             string // the case's files, made by the host
	imgSize         int64
	envOff, envSize int64
	redundant       bool
	decrements      bool     // the bootloader spends an attempt at each boot
	envFiles        []string // the environment's copies as files of env's filesystem; none when raw
	updater         string
	command         []string
	updateTime      float64
}

// the regions' order in the medium: the data partition first, so that
// the medium mounts as its filesystem.
const (
	regData = iota
	regA
	regB
	regEnv
)

// Update is one campaign of the update test: record the update (unless
// an earlier boot did), judge the data partition in every state with
// crash_states' replay (the data partition leads the medium, so a state
// of the medium mounts as the data partition), then the boot of every
// state it judged.
func Update(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	u, err := newUpdateCampaign(e)
	if err != nil {
		return nil, err
	}
	updTeardown(e)
	defer updTeardown(e)
	if err := os.MkdirAll(crashNodeDir, 0o755); err != nil {
		return nil, err
	}
	if err := u.medium(); err != nil {
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
		u.work.pat.Salt = sc.Salt
		if err := u.record(ctx, &sc); err != nil {
			return nil, err
		}
		if err := e.SetScratch(sc); err != nil {
			return nil, err
		}
		if err := e.SaveScratch(); err != nil {
			return nil, err
		}
	}
	u.work.pat.Salt = sc.Salt
	out, err := u.replay(ctx, &sc)
	if err != nil {
		return nil, err
	}
	return out, u.bootPass(&sc, out)
}

// newUpdateCampaign reads the case's parameters and finds its
// partitions.
func newUpdateCampaign(e *step.Env) (*updateCampaign, error) {
	if e.Part == nil || e.Part.Root {
		return nil, fmt.Errorf("%s needs a data partition that is not the root", e.Step.ID())
	}
	p := e.P
	u := &updateCampaign{dir: runplan.UpdateCaseDir(e.Step.Test, e.Step.Case), imgSize: p.Int("image_size"),
		envOff: p.Int("env_offset"), envSize: p.Int("env_size"), redundant: p.Bool("env_redundant"),
		decrements: p.Bool("bootloader_decrements"), updater: p.String("updater")}
	// The plan checked the names (runplan.UpdateEnvFiles, on the host);
	// the runner, whose size is budgeted, reads them as given.
	if file := p.String("env_file"); file != "" {
		u.envFiles = []string{file}
		if u.redundant {
			u.envFiles = append(u.envFiles, p.String("env_file_redund"))
		}
	}
	u.crashCampaign = &crashCampaign{e: e, cowBytes: p.Int("snapshot_size"),
		work: &crashWorkload{kind: "fsync", ops: int(p.Int("operations")), size: 4096}}
	logName := p.String("log")
	names := []string{p.String("slot_a"), p.String("slot_b"), p.String("env")}
	if p.Err != nil {
		return nil, p.Err
	}
	if list, ok := e.Step.Params["command"].([]any); ok {
		for _, a := range list {
			s, _ := a.(string)
			u.command = append(u.command, s)
		}
	}
	find := func(name string) *runplan.Partition {
		for i := range e.Plan.Partitions {
			if e.Plan.Partitions[i].Name == name {
				return &e.Plan.Partitions[i]
			}
		}
		return nil
	}
	u.regions = append(u.regions, &updRegion{field: "on", part: e.Part})
	for i, f := range []string{"slot_a", "slot_b", "env"} {
		part := find(names[i])
		if part == nil {
			return nil, fmt.Errorf("the plan has no partition %q for %s", names[i], f)
		}
		u.regions = append(u.regions, &updRegion{field: f, part: part})
	}
	if u.logPart = find(logName); u.logPart == nil {
		return nil, fmt.Errorf("the plan has no partition %q for the write log", logName)
	}
	sectors, err := linux.BlockSectors(u.logPart.Device)
	if err != nil {
		return nil, err
	}
	if u.logBytes = int64(sectors)*512 - u.cowBytes; u.logBytes < 4<<20 {
		return nil, fmt.Errorf("the log partition %s leaves less than 4MiB for the log beside the snapshot store", logName)
	}
	return u, nil
}

// medium puts the linear device over the regions' partitions, one after
// the other, and makes it the partition crash_states' machinery records
// and replays.
func (u *updateCampaign) medium() error {
	var targets []devmapper.Target
	var at uint64
	for _, r := range u.regions {
		sectors, err := linux.BlockSectors(r.part.Device)
		if err != nil {
			return err
		}
		num, err := linux.DevNumber(r.part.Device)
		if err != nil {
			return err
		}
		r.off, r.size = int64(at)*512, int64(sectors)*512
		targets = append(targets, devmapper.Target{Start: at, Length: sectors, Kind: "linear", Params: num + " 0"})
		at += sectors
	}
	d, err := devmapper.Create(updMediumName, crashNodeDir, targets)
	if err != nil {
		return err
	}
	medium := *u.e.Part
	medium.Device = d.Node
	u.part = &medium
	return nil
}

// record zeroes the regions, seeds them through the log (the old image
// in slot A, the factory environment, the data partition's filesystem),
// marks the log, and runs the update beside the application's appends.
func (u *updateCampaign) record(ctx context.Context, sc *crashScratch) error {
	e := u.e
	start := time.Now()
	if err := e.UnmountPart(e.Part); err != nil {
		return err
	}
	e.ForgetMounts()
	if err := zeroOut(u.part.Device); err != nil {
		return err
	}
	if err := zeroRange(u.logPart.Device, 0, 64<<10); err != nil {
		return err
	}
	lw, err := u.logWrites()
	if err != nil {
		return err
	}
	defer lw.Remove()
	for _, r := range u.regions {
		d, err := linear(updPrefix+r.field, lw.Node, r.off, r.size)
		if err != nil {
			return err
		}
		if r.node = d.Node; r.field != "on" && d.Node != runplan.UpdateSlotNode(r.field) {
			return fmt.Errorf("the update writes %s through %s, not %s, which the host's update image names", r.field, d.Node, runplan.UpdateSlotNode(r.field))
		}
	}
	dir, err := u.seed(ctx)
	if err != nil {
		return err
	}
	mark := func(text string) error { return devmapper.Message(crashLWName, "mark "+text) }
	if err := mark(logwrites.FSMark); err != nil {
		return err
	}
	werr := u.runUpdate(ctx, dir, lw.Node, mark)
	if err := linux.UnmountWithin(dir, 2*time.Minute); err != nil {
		return err
	}
	e.ForgetMounts()
	if werr != nil {
		return werr
	}
	// The system syncs at last: the state with the update and the
	// appends all written is a crash point too.
	if err := syncDevice(lw.Node); err != nil {
		return err
	}
	return u.finishLog(lw, start, sc)
}

// seed writes the state before the update through the log.
func (u *updateCampaign) seed(ctx context.Context) (string, error) {
	e := u.e
	if err := copyImage(filepath.Join(u.dir, runplan.UpdateOldImage), u.regions[regA].node, 0, u.imgSize); err != nil {
		return "", fmt.Errorf("the old image into slot A: %w", err)
	}
	env := u.regions[regEnv]
	if err := copyImage(filepath.Join(u.dir, runplan.UpdateEnvImage), env.node, u.envOff, -1); err != nil {
		return "", fmt.Errorf("the factory environment: %w", err)
	}
	through := *e.Part
	through.Device = u.regions[regData].node
	if err := Remake(ctx, &through); errors.Is(err, ErrNoMkfs) {
		return "", step.Skipf("update makes the data partition through the write log: %v", err)
	} else if err != nil {
		return "", err
	}
	dir := e.MountDir(e.Part)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fl, err := linux.FlagsOf(e.Part.Flags)
	if err != nil {
		return "", err
	}
	if _, err := linux.Mount(through.Device, dir, e.Part.FS, fl, e.Part.Data); err != nil {
		return "", fmt.Errorf("mounting %s through dm-log-writes: %w", e.Part.Name, err)
	}
	e.TrackMount(dir)
	work := e.WorkDirIn(dir)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return dir, err
	}
	return dir, linux.SyncFS(work)
}

// copyImage writes the file src (its first n bytes; n < 0 all of it) to
// the device dst at off, synced.
func copyImage(src, dst string, off, n int64) error {
	in, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if n >= 0 {
		if int64(len(in)) < n {
			return fmt.Errorf("%s has %d bytes, image_size is %d", src, len(in), n)
		}
		in = in[:n]
	}
	out, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer out.Close()
	if _, err := out.WriteAt(in, off); err != nil {
		return err
	}
	return out.Sync()
}

// syncDevice flushes a block device: its cache and the device's.
func syncDevice(node string) error {
	f, err := os.OpenFile(node, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// finishLog takes the recording down and keeps the log's size and
// digest, which every replay checks.
func (u *updateCampaign) finishLog(lw *devmapper.Device, start time.Time, sc *crashScratch) error {
	for _, r := range u.regions {
		(&devmapper.Device{Name: updPrefix + r.field}).Remove()
	}
	status, err := devmapper.Status(crashLWName)
	if err != nil {
		return err
	}
	if strings.Contains(status, "logging_disabled") {
		return fmt.Errorf("the write log filled the log partition %s (%d MiB for the log): give it more space or the images less", u.logPart.Name, u.logBytes>>20)
	}
	if err := lw.Remove(); err != nil {
		return err
	}
	l, f, err := u.openLog()
	if err != nil {
		return err
	}
	defer f.Close()
	if sc.Digest, err = l.Digest(); err != nil {
		return err
	}
	sc.Entries, sc.LogBytes, sc.RecordTime = len(l.Entries), l.End, time.Since(start).Seconds()
	return nil
}

// updTeardown removes what an update campaign cut short left: the
// devices over the log-writes device, crash_states' devices (the log,
// the snapshots), then the medium.
func updTeardown(e *step.Env) {
	for _, f := range []string{"slot_a", "slot_b", "env", "on", "state"} {
		(&devmapper.Device{Name: updPrefix + f}).Remove()
	}
	crashTeardown(e)
	(&devmapper.Device{Name: updMediumName}).Remove()
}

// UpdateFinish removes what the update campaigns of the step left.
func UpdateFinish(ctx context.Context, e *step.Env) error {
	os.Remove(crashResultsPath(e))
	updTeardown(e)
	return nil
}
