// Package updateboot boots for real, through U-Boot in QEMU, states that
// an update test judged. The runner judges each crash state of an A/B
// update by reading it as U-Boot and RAUC's boot script would; this
// package takes the states the result lists (runplan.UpdateBootStates:
// every state judged Fallback or Bricked, and a sample of the others),
// rebuilds each from the write log the campaign left on the run's disk,
// writes its slots and environment into a boot disk, and boots Debian's
// U-Boot for QEMU on it. U-Boot checks the environment copies' CRCs,
// imports the current one, runs RAUC's boot logic, compares the slot it
// picked with the two images, and starts the kernel with what it decided
// on the command line, which the kernel prints. Where the boot lands
// must be where the state was judged; a disagreement names the state.
package updateboot

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/parttable"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// MaxImage is the largest image_size booted for real: U-Boot holds the
// slot and both images in the guest's memory to compare them.
const MaxImage = 96 << 20

// Case is one update test's result to check on the disk of its run.
type Case struct {
	Disk     string // the run's disk image, as the plan left it
	Plan     *runplan.Plan
	Step     runplan.Step
	Result   resultframe.Result
	Kernel   string // the bzImage U-Boot starts
	Firmware string // U-Boot for QEMU's x86 machine (u-boot-qemu's qemu-x86/u-boot.rom)
	Work     string // a directory for the boot disk
	Log      logrus.FieldLogger
}

// Outcome is what the real boots found.
type Outcome struct {
	Judged   int // states the result listed
	Boots    int // boots run: one per distinct environment and slots
	Agree    int // states whose boot landed where they were judged
	Disagree []string
}

// region is one partition of the update's medium: data, slot A, slot B,
// environment, in the runner's order.
type region struct {
	off, size int64
}

// Check rebuilds and boots the states c.Result lists.
func Check(ctx context.Context, c Case) (*Outcome, error) {
	judged, err := runplan.ParseBootJudgements(c.Result.Attrs[runplan.UpdateBootStates])
	if err != nil {
		return nil, err
	}
	out := &Outcome{Judged: len(judged)}
	if len(judged) == 0 {
		return out, nil
	}
	most, err := c.Step.Params.Int("max_boots")
	if err != nil {
		return nil, err
	}
	judged = budget(judged, int(most))
	disk, err := os.Open(c.Disk)
	if err != nil {
		return nil, err
	}
	defer disk.Close()
	lay, err := readLayout(c, disk)
	if err != nil {
		return nil, err
	}
	if lay.imgSize > MaxImage {
		return nil, fmt.Errorf("image_size %d MiB: real boots compare the slot with the images in U-Boot's memory, up to %d MiB", lay.imgSize>>20, MaxImage>>20)
	}
	l, err := lay.openLog(disk, c.Result.Attrs[runplan.UpdateLogDigest])
	if err != nil {
		return nil, err
	}
	states := make([]logwrites.State, len(judged))
	for i, j := range judged {
		if states[i], err = logwrites.ParseState(j.State, len(l.Entries)); err != nil {
			return nil, err
		}
	}
	base, err := os.CreateTemp(c.Work, "medium-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(base.Name())
	defer base.Close()
	if err := base.Truncate(lay.mediumSize()); err != nil {
		return nil, err
	}
	b := &booter{c: c, lay: lay, landed: map[[32]byte]landing{}}
	if err := b.images(l); err != nil {
		return nil, err
	}
	if err := b.prepare(ctx); err != nil {
		return nil, err
	}
	order := make([]int, len(states))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return states[order[x]].Applied < states[order[y]].Applied })
	rp := logwrites.NewReplayer(l, base)
	for _, i := range order {
		if err := rp.To(states[i].Applied); err != nil {
			return nil, err
		}
		got, err := b.boot(ctx, rp, base, states[i])
		if err != nil {
			return nil, fmt.Errorf("state %s: %w", judged[i].State, err)
		}
		if want := judged[i]; got.class != want.Class || got.copy != want.Copy || got.slot != want.Slot || (got.slot != "" && got.left != want.Left) {
			out.Disagree = append(out.Disagree, fmt.Sprintf("state %s: judged %s (copy %d, slot %q, %d attempts), booted %s (copy %d, slot %q, %d attempts): %s",
				want.State, want.Class, want.Copy, want.Slot, want.Left, got.class, got.copy, got.slot, got.left, got.why))
		} else {
			out.Agree++
		}
	}
	out.Boots = len(b.landed)
	return out, nil
}

// budget keeps at most most of the judged states (0: all): the first
// of each class, then the others evenly spread, in their listed order.
func budget(judged []runplan.BootJudgement, most int) []runplan.BootJudgement {
	if most <= 0 || len(judged) <= most {
		return judged
	}
	keep := map[int]bool{}
	seen := map[string]bool{}
	for i, j := range judged {
		if !seen[j.Class] && len(keep) < most {
			seen[j.Class] = true
			keep[i] = true
		}
	}
	for k := 0; k < most && len(keep) < most; k++ {
		keep[k*len(judged)/most] = true
	}
	// Spread indexes that met a class's first leave room: the lowest
	// ones left fill it.
	for i := 0; len(keep) < most; i++ {
		keep[i] = true
	}
	var out []runplan.BootJudgement
	for i, j := range judged {
		if keep[i] {
			out = append(out, j)
		}
	}
	return out
}

// layout is where the medium's regions lie on the run's disk.
type layout struct {
	regions        [4]region // data, slot A, slot B, env: offsets on the disk
	log            region
	imgSize        int64
	envOff, envLen int64
	redundant      bool
	decrements     bool     // the bootloader spends an attempt at each boot
	envFiles       []string // the copies as files of the environment's filesystem; none when raw
}

const (
	regData = iota
	regA
	regB
	regEnv
)

func (l *layout) mediumSize() int64 {
	var n int64
	for _, r := range l.regions {
		n += r.size
	}
	return n
}

// mediumOff is where region i starts in the medium.
func (l *layout) mediumOff(i int) int64 {
	var n int64
	for _, r := range l.regions[:i] {
		n += r.size
	}
	return n
}

// readLayout finds the step's partitions on the disk by their numbers in
// the plan.
func readLayout(c Case, f *os.File) (*layout, error) {
	p := c.Step.Params
	lay := &layout{}
	var err error
	get := func(name string) int64 {
		v, e := p.Int(name)
		err = errors.Join(err, e)
		return v
	}
	lay.imgSize, lay.envOff, lay.envLen = get("image_size"), get("env_offset"), get("env_size")
	snapshot := get("snapshot_size")
	var e error
	lay.redundant, e = p.Bool("env_redundant")
	err = errors.Join(err, e)
	lay.decrements, e = p.Bool("bootloader_decrements")
	err = errors.Join(err, e)
	lay.envFiles, e = runplan.UpdateEnvFiles(p)
	err = errors.Join(err, e)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	table, err := parttable.ReadTable(f, st.Size(), 512)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Disk, err)
	}
	find := func(name string) (region, error) {
		for _, pp := range c.Plan.Partitions {
			if pp.Name != name {
				continue
			}
			for _, tp := range table.Partitions {
				if tp.Number == pp.Number {
					return region{tp.Start, tp.Size}, nil
				}
			}
		}
		return region{}, fmt.Errorf("the disk has no partition %q of the plan", name)
	}
	names := []string{c.Step.On}
	for _, field := range []string{"slot_a", "slot_b", "env"} {
		s, err := p.String(field)
		if err != nil {
			return nil, err
		}
		names = append(names, s)
	}
	for i, n := range names {
		if lay.regions[i], err = find(n); err != nil {
			return nil, err
		}
	}
	logName, err := p.String("log")
	if err != nil {
		return nil, err
	}
	if lay.log, err = find(logName); err != nil {
		return nil, err
	}
	lay.log.size -= snapshot
	return lay, nil
}

// openLog reads the log on the disk and checks that it is the one the
// result was judged from: a later test on the same log partition
// overwrites it.
func (l *layout) openLog(disk io.ReaderAt, digest string) (*logwrites.Log, error) {
	log, err := logwrites.Open(io.NewSectionReader(disk, l.log.off, l.log.size), l.log.size, l.mediumSize())
	if err != nil {
		return nil, fmt.Errorf("the write log: %w", err)
	}
	d, err := log.Digest()
	if err != nil {
		return nil, err
	}
	if d != digest {
		return nil, fmt.Errorf("the write log on the disk is not the one the result was judged from (digest %.12s, judged %.12s): "+
			"a later campaign on the same log partition overwrote it; give each update test its own log partition", d, digest)
	}
	return log, nil
}

// hashInputs is what a boot depends on: the environment's partition and
// the images' bytes of both slots.
func hashInputs(env, a, b []byte) [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{env, a, b} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

// workFile is a path in the case's work directory.
func (c Case) workFile(name string) string { return filepath.Join(c.Work, name) }
