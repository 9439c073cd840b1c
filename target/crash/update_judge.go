package crash

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/target/devmapper"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
	"github.com/fsbench/fsbench/wire/ubootenv"
)

// The boot classes of a state, from the best.
const (
	BootOld      = "OldSlot"
	BootNew      = "NewSlot"
	BootFallback = "Fallback"
	BootBricked  = "Bricked"
)

// bootState is how a state boots.
type bootState struct {
	Boot    string
	Why     string // how the boot was decided
	Invalid int    // environment copies whose CRC fails
	NoEnv   bool   // none is valid: U-Boot's default environment
	Copy    int    // the environment copy U-Boot reads, -1 for none
	Slot    string // the slot it boots, "" for none
	Left    int    // the slot's attempts left before the boot spends one
}

// bootEntry is a judged state as the host's real boots read it.
func bootEntry(st logwrites.State, b bootState) string {
	return runplan.BootJudgement{State: st.Code(), Class: b.Boot, Copy: b.Copy, Slot: b.Slot, Left: b.Left}.String()
}

// bootPass judges the boot of every state the replay judged: it replays
// the log again and, in a snapshot of each state, reads what U-Boot
// would (no mount: it is quick), and adds the counts to out.
func (u *updateCampaign) bootPass(sc *crashScratch, out *step.Outcome) error {
	e := u.e
	points := logwrites.Points{Flush: true, FUA: true, Marks: e.P.Bool("at_marks"), EveryWrite: int(e.P.Int("every_write"))}
	dev, maxStates := deviceModel(e.P), int(e.P.Int("max_states"))
	l, f, fsAt, err := u.verifiedLog(sc)
	if err != nil {
		return err
	}
	defer f.Close()
	points.From = fsAt + 1
	chosen, _ := l.Space(points, dev).Choose(maxStates)
	done, err := readStateResults(crashResultsPath(e))
	if err != nil {
		return err
	}
	ws, err := u.startWorkers(l, e.P.String("replay_on"), 1, sc.LogBytes, -1)
	if err != nil {
		return err
	}
	w := ws[0]
	defer w.close()
	counts := map[string]int{}
	invalid, none := 0, 0
	var last bootState
	marks := make([]string, len(l.Entries))
	for i, en := range l.Entries {
		if en.IsMark() {
			marks[i] = en.Mark
		}
	}
	steps := updaterSteps(marks)
	cache := newRegionCache(l, u.regions[regA], u.regions[regB], u.regions[regEnv])
	firstBad := true
	firstOf := map[string]bool{}
	var good, always []string
	lastLog, judged, total := time.Now(), 0, 0
	for _, st := range chosen {
		if r, ok := done[st.N]; ok && r.Skipped == "" {
			total++
		}
	}
	for _, st := range chosen {
		if r, ok := done[st.N]; !ok || r.Skipped != "" {
			continue
		}
		if judged++; time.Since(lastLog) > 30*time.Second {
			lastLog = time.Now()
			e.Logf("%s: %d of %d states judged for their boot", e.Step.ID(), judged, total)
		}
		if err := w.advance(st.Applied); err != nil {
			return err
		}
		b, err := u.bootOf(w, st, cache)
		if err != nil {
			return err
		}
		counts[b.Boot]++
		// Every bad state boots for real on the host, and every state
		// with a copy that fails its CRC (what the other copy is for);
		// of the others, a sample.
		if (b.Boot == BootOld || b.Boot == BootNew) && b.Invalid == 0 {
			good = append(good, bootEntry(st, b))
		} else {
			always = append(always, bootEntry(st, b))
		}
		invalid += min(b.Invalid, 1)
		if b.NoEnv {
			none++
		}
		if b.Boot != BootOld && b.Boot != BootNew && !firstOf[b.Boot] {
			// The first state of each bad class, as fsbench crash-state
			// takes it, with the log's entry before the cut.
			firstOf[b.Boot] = true
			at := fmt.Sprintf("%s (after entry %s; %s; the updater's last line: %q)", st.Code(), l.Entries[st.Marks()-1], st.Beyond, steps[st.Marks()])
			out.Attr("first_"+strings.ToLower(b.Boot)+"_state", at)
			out.Attr("first_"+strings.ToLower(b.Boot), b.Why)
			if firstBad {
				firstBad = false
				out.Attr("first_bad_boot_state", at)
				out.Attr("first_bad_boot", b.Boot+": "+b.Why)
			}
		}
		last = b
	}
	for _, class := range []string{BootOld, BootNew, BootFallback, BootBricked} {
		out.Metric("boot."+class, float64(counts[class]), "states")
	}
	out.Metric("env_copy_invalid", float64(invalid), "states")
	out.Metric("env_none_valid", float64(none), "states")
	if u.updateTime > 0 {
		out.Metric("update_time", u.updateTime, "s")
	}
	out.Attr("updater", u.updater)
	out.Attr("env_place", u.envPlace())
	out.Attr(runplan.UpdateLogDigest, sc.Digest)
	out.Attr(runplan.UpdateBootStates, strings.Join(append(spread(good, int(e.P.Int("boot_sample"))), always...), " "))
	out.Attr("last_state_boot", last.Boot+": "+last.Why)
	e.Logf("%s: boots: %d old, %d new, %d fallback, %d bricked", e.Step.ID(), counts[BootOld], counts[BootNew], counts[BootFallback], counts[BootBricked])
	return nil
}

// bootOf judges one state in a snapshot of the replayed medium, with
// what the device model's state holds beyond its prefix.
func (u *updateCampaign) bootOf(w *stateWorker, st logwrites.State, cache *regionCache) (bootState, error) {
	var b bootState
	snap, err := devmapper.Create(w.snapName, crashNodeDir, []devmapper.Target{w.snapshot})
	if err != nil {
		return b, err
	}
	defer snap.Remove()
	if err := w.beyond(st, snap.Node); err != nil {
		if full := w.overflowed(); full != "" {
			return b, fmt.Errorf("state %s: %s", st.Code(), full)
		}
		return b, err
	}
	return b, u.judgeBoot(snap.Node, st, cache, &b)
}

// judgeBoot reads the environment U-Boot would, follows RAUC's boot
// logic to a slot (through the failed boots of a slot that is neither
// image), and compares each slot it picks with the two images; what a
// region holds is read once per last write into it (cache).
func (u *updateCampaign) judgeBoot(node string, st logwrites.State, cache *regionCache, s *bootState) error {
	f, err := os.Open(node)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := cache.get(st, cacheEnv, func() (any, error) { return u.readEnv(f, node) })
	if err != nil {
		return err
	}
	bufs := got.([][]byte)
	var copies [2]ubootenv.Copy
	for i, buf := range bufs {
		if copies[i] = ubootenv.Parse(buf, u.redundant); !copies[i].Valid {
			s.Invalid++
		}
	}
	cur, which := ubootenv.Current(copies[0], copies[1])
	s.Copy = which
	vars := cur.Vars
	if s.NoEnv = which < 0; s.NoEnv {
		vars = runplan.UpdateFactoryEnv()
		s.Why = "no valid environment copy: U-Boot's default environment"
	} else {
		s.Why = fmt.Sprintf("environment copy %d (flags %d)", which, cur.Flags)
	}
	land, err := bootAttempts(vars, u.decrements, func(slot int) (string, error) {
		img, err := cache.get(st, slot, func() (any, error) { return u.slotImage(f, u.regions[regA+slot]) })
		if err != nil {
			return "", err
		}
		return img.(string), nil
	})
	if err != nil {
		return err
	}
	s.Why += ": " + land.why
	if land.slot >= 0 {
		s.Slot, s.Left = "AB"[land.slot:land.slot+1], land.left
	}
	switch {
	case land.slot < 0 || land.loop:
		s.Boot = BootBricked
	case which < 0 || land.failed != "":
		s.Boot = BootFallback
	case land.image == imageOld:
		s.Boot = BootOld
	default:
		s.Boot = BootNew
	}
	return nil
}

// envPlace says where the environment's copies are.
func (u *updateCampaign) envPlace() string {
	if len(u.envFiles) > 0 {
		return fmt.Sprintf("files %s of %s on %s", strings.Join(u.envFiles, " and "), u.regions[regEnv].part.FS, u.regions[regEnv].part.Name)
	}
	copies := "one raw copy"
	if u.redundant {
		copies = "two raw copies"
	}
	return fmt.Sprintf("%s at offset %d of %s", copies, u.envOff, u.regions[regEnv].part.Name)
}

// readEnv reads the environment's copies as U-Boot would, each
// env_size bytes (nil for one it cannot read): raw from env_offset, or
// as files of the environment's filesystem, mounted read-only from a
// device over its region of the state (node).
func (u *updateCampaign) readEnv(f *os.File, node string) ([][]byte, error) {
	env := u.regions[regEnv]
	n := 1
	if u.redundant {
		n = 2
	}
	bufs := make([][]byte, n)
	if len(u.envFiles) == 0 {
		for i := range bufs {
			bufs[i] = make([]byte, u.envSize)
			if _, err := f.ReadAt(bufs[i], env.off+u.envOff+int64(i)*u.envSize); err != nil {
				return nil, fmt.Errorf("reading the environment: %w", err)
			}
		}
		return bufs, nil
	}
	d, err := linear(updPrefix+"envstate", node, env.off, env.size)
	if err != nil {
		return nil, err
	}
	defer d.Remove()
	dir, err := u.mountEnv(d.Node, syscall.MS_RDONLY)
	if err != nil {
		return bufs, nil // U-Boot cannot read the filesystem either: no copy
	}
	defer linux.Unmount(dir)
	for i, name := range u.envFiles {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && int64(len(b)) >= u.envSize {
			bufs[i] = b[:u.envSize]
		}
	}
	return bufs, nil
}

// What slotImage finds a slot's bytes to be.
const (
	imageOld   = "the old image"
	imageNew   = "the new image"
	imageMixed = "neither image (a mixed slot)"
)

// landing is where the boots from a power-on end: the slot that comes
// up (-1 none) with its attempts left before its boot spends one and
// its image, the slots whose boots failed on the way, and whether the
// board boots a failing slot forever.
type landing struct {
	slot, left  int
	image       string
	failed, why string
	loop        bool
}

// bootAttempts follows the board from a power-on: RAUC's logic picks a
// slot (bootSlot); a slot holding neither image fails to boot (the
// kernel panics or the watchdog resets the board), and a bootloader that
// spends an attempt at each boot comes back with one fewer, until the
// slot has none and the logic picks the next; one that never spends an
// attempt boots the failing slot forever. imageOf says what a slot holds.
func bootAttempts(vars map[string]string, decrements bool, imageOf func(slot int) (string, error)) (landing, error) {
	vars = maps.Clone(vars)
	var l landing
	for {
		slot, left, why := bootSlot(vars)
		l.why = strings.TrimPrefix(l.why+"; then "+why, "; then ")
		l.slot, l.left = slot, left
		if slot < 0 {
			return l, nil
		}
		img, err := imageOf(slot)
		if err != nil {
			return l, err
		}
		l.image = img
		l.why += "; its bytes are " + img
		if img != imageMixed {
			return l, nil
		}
		name := "AB"[slot : slot+1]
		if !decrements {
			l.loop = true
			l.why += ": the bootloader never spends an attempt, so it boots " + name + " forever"
			return l, nil
		}
		// Each failed boot spends one attempt: all of them go.
		l.failed += name
		l.why += fmt.Sprintf(", so its %d boots fail", left)
		vars["BOOT_"+name+"_LEFT"] = "0"
	}
}

// bootSlot is RAUC's U-Boot boot logic (its documentation's script,
// which the factory environment's bootcmd holds): an unset BOOT_ORDER is
// "A B", an unset BOOT_<slot>_LEFT 3; the first slot of BOOT_ORDER whose
// attempts are above 0 boots (0 for A, 1 for B, -1 none), with its
// attempts left. A value U-Boot's test does not read as a number counts
// as 0.
func bootSlot(vars map[string]string) (int, int, string) {
	get := func(name, unset string) string {
		if v := vars[name]; v != "" {
			return v
		}
		return unset
	}
	order := get("BOOT_ORDER", "A B")
	for _, name := range strings.Fields(order) {
		i := strings.Index("AB", name)
		if len(name) != 1 || i < 0 {
			continue
		}
		if left, err := strconv.Atoi(get("BOOT_"+name+"_LEFT", "3")); err == nil && left > 0 {
			return i, left, fmt.Sprintf("BOOT_ORDER %q boots %s (%d attempts left)", order, name, left)
		}
	}
	return -1, 0, fmt.Sprintf("no slot of BOOT_ORDER %q has attempts left (A %q, B %q)", order, vars["BOOT_A_LEFT"], vars["BOOT_B_LEFT"])
}

// slotImage says which image the slot's first image_size bytes are.
func (u *updateCampaign) slotImage(dev *os.File, r *updRegion) (string, error) {
	var imgs [2]*os.File
	for i, name := range []string{runplan.UpdateOldImage, runplan.UpdateNewImage} {
		f, err := os.Open(filepath.Join(u.dir, name))
		if err != nil {
			return "", err
		}
		defer f.Close()
		imgs[i] = f
	}
	same := [2]bool{true, true}
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < u.imgSize && (same[0] || same[1]); off += int64(len(a)) {
		k := min(int64(len(a)), u.imgSize-off)
		if _, err := dev.ReadAt(a[:k], r.off+off); err != nil && err != io.EOF {
			return "", err
		}
		for i, img := range imgs {
			if _, err := img.ReadAt(b[:k], off); err != nil && err != io.EOF {
				return "", err
			}
			same[i] = same[i] && bytes.Equal(a[:k], b[:k])
		}
	}
	switch {
	case same[0]:
		return imageOld, nil
	case same[1]:
		return imageNew, nil
	}
	return imageMixed, nil
}

// regionCache remembers what a region of the medium holds (a slot's
// image, the environment's copies) by the last entry of the prefix that
// wrote into it: a state that writes nothing into the region beyond its
// prefix holds it as every state with that entry last does, so its
// reading (a slot's comparison with the images, the slot's whole size)
// is made once. Most states leave a region as an earlier state had it.
type regionCache struct {
	writes [3][]int // the entries that write into slot A, slot B, the environment, in log order
	known  map[[2]int]any
}

// cacheEnv is the environment's region in a regionCache.
const cacheEnv = 2

func newRegionCache(l *logwrites.Log, regions ...*updRegion) *regionCache {
	c := &regionCache{known: map[[2]int]any{}}
	for i, en := range l.Entries {
		if !en.HasData() && !en.Discard() {
			continue
		}
		from, to := int64(en.Sector)*l.SectorSize, int64(en.Sector+en.Sectors)*l.SectorSize
		for k, r := range regions {
			if from < r.off+r.size && to > r.off {
				c.writes[k] = append(c.writes[k], i)
			}
		}
	}
	return c
}

// get is what region k holds in st, from an earlier state or read.
func (c *regionCache) get(st logwrites.State, k int, read func() (any, error)) (any, error) {
	w := c.writes[k]
	n := sort.SearchInts(w, st.Applied) // the prefix's writes into the region
	if st.Beyond != nil && n < len(w) && w[n] < st.Beyond.Upto {
		return read() // a write beyond the prefix may be in it
	}
	key := [2]int{k, n}
	if v, ok := c.known[key]; ok {
		return v, nil
	}
	v, err := read()
	if err == nil {
		c.known[key] = v
	}
	return v, err
}

// spread is k of the entries, evenly spread, the first and the last
// among them.
func spread(v []string, k int) []string {
	if k >= len(v) {
		return v
	}
	out := make([]string, 0, k)
	for i := range k {
		if k == 1 {
			return append(out, v[len(v)-1])
		}
		out = append(out, v[i*(len(v)-1)/(k-1)])
	}
	return out
}
