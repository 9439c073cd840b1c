package linux

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/wire/runplan"
)

// A filesystem that leaves its garbage collection to user space runs, on
// a real system, with that collector beside every mount: mount.nilfs2
// starts nilfs_cleanerd, which reclaims segments; without it nilfs2 fills
// up and never shows what its cleaning costs. The runner mounts with
// Mount(2), so it starts the partition's cleaner itself (the plan's
// Partition.Cleaner, from the image, with the image's configuration) and
// stops it before the unmount, as umount.nilfs2 does.

// cleaners are the cleaners running, by mount directory.
var cleaners = struct {
	sync.Mutex
	pids map[string]int
}{pids: map[string]int{}}

// StartCleaner starts p's cleaner for its mount of dev at dir, unless one
// runs there, and returns what to record: the command and its pid, or why
// none runs. "" when the type has no cleaner.
func StartCleaner(p *runplan.Partition, dev, dir string) string {
	return StartCleanerWith(p, dev, dir, nil)
}

// StartCleanerWith starts p's cleaner with extra arguments after its
// program's name.
func StartCleanerWith(p *runplan.Partition, dev, dir string, extra []string) string {
	if len(p.Cleaner) == 0 {
		return ""
	}
	cleaners.Lock()
	defer cleaners.Unlock()
	argv := []string{p.Cleaner[0]}
	argv = append(argv, extra...)
	for _, a := range p.Cleaner[1:] {
		argv = append(argv, strings.NewReplacer("{device}", dev, "{mountpoint}", dir).Replace(a))
	}
	if pid, ok := cleaners.pids[dir]; ok && Alive(pid) {
		return fmt.Sprintf("%s (pid %d)", strings.Join(argv, " "), pid)
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Sprintf("not running: %s is not on this target", argv[0])
	}
	// The cleaner makes itself a daemon: the command returns once it has.
	out, err := exec.Command(bin, argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("not running: %s: %v %s", argv[0], err, strings.TrimSpace(string(out)))
	}
	pid, err := FindProcess(argv)
	if err != nil {
		return fmt.Sprintf("not running: %s: %v", argv[0], err)
	}
	cleaners.pids[dir] = pid
	return fmt.Sprintf("%s (pid %d)", strings.Join(argv, " "), pid)
}

// CleanerClock keeps the protection period of a mount's cleaner, given in
// the device's time, in step with a replay that runs hundreds of times
// faster than the clock (endurance). The cleaner counts a segment's age in
// the clock's seconds: left with its configured hour, it would protect
// everything a replay of weeks wrote, which a product never sees, and the
// filesystem would fill up. So the clock measures the replay's speed as it
// goes and restarts the cleaner with the period scaled to it whenever the
// scaled period is off by more than a factor of two. Its other intervals
// (how often it looks, how much it cleans a pass) stay in the clock's
// seconds: at the replay's speed it reclaims hundreds of times less, for
// the device's time, than on a product, where it has hours between two
// bursts of writes. So whenever the filesystem's clean space falls below
// cleanerFloor, the replay stops its clock and waits for the cleaner to
// bring it back, as long as the cleaner makes progress: what it could not
// reclaim in the device's time either is still found full.
type CleanerClock struct {
	part     *runplan.Partition
	dir      string
	period   time.Duration // of the device's time
	start    time.Time
	seconds  int // the period the cleaner has now; -1: its configuration's
	restarts int
	note     string // what the cleaner runs with, or why it does not run
	waits    int
	waited   time.Duration
	stalled  uint64 // the clean blocks when the cleaner last stalled; 0: never
}

// cleanerFloor is the share of the filesystem's blocks the replay keeps
// clean: nilfs_cleanerd's stock min_clean_segments, below which it cleans
// in its faster mode (mc_cleaning_interval, mc_nsegments_per_clean).
const cleanerFloor = 0.1

// cleanerStall is how long the replay waits for a cleaner that reclaims
// nothing before it goes on: longer than the stock cleaning_interval (5 s).
const cleanerStall = 6 * time.Second

// NewCleanerClock returns the clock of the cleaner beside p's mount at
// dir, or nil when none runs there or it takes no period.
func NewCleanerClock(p *runplan.Partition, dir string, period time.Duration) *CleanerClock {
	if len(p.CleanerPeriod) == 0 {
		return nil
	}
	cleaners.Lock()
	pid, ok := cleaners.pids[dir]
	cleaners.Unlock()
	if !ok || !Alive(pid) {
		return nil
	}
	return &CleanerClock{part: p, dir: dir, period: period, start: time.Now(), seconds: -1}
}

// Tick is called as the replay's clock passes ms of the device's time.
func (c *CleanerClock) Tick(ms int64) {
	if c == nil {
		return
	}
	wall := time.Since(c.start)
	if wall < time.Second || ms <= 0 {
		return
	}
	defer c.WaitClean()
	s, restart := ScaledPeriod(c.period, ms, wall, c.seconds)
	if !restart {
		return
	}
	StopCleaner(c.dir)
	args := make([]string, len(c.part.CleanerPeriod))
	for i, a := range c.part.CleanerPeriod {
		args[i] = strings.ReplaceAll(a, "{seconds}", strconv.Itoa(s))
	}
	c.note = StartCleanerWith(c.part, c.part.Device, c.dir, args)
	c.seconds = s
	c.restarts++
}

// WaitClean waits while the filesystem's clean space is under the floor
// and the cleaner adds to it. After a stall it waits again only once the
// cleaner has found something.
func (c *CleanerClock) WaitClean() {
	free := func() (avail, total uint64) {
		var st unix.Statfs_t
		if unix.Statfs(c.dir, &st) != nil {
			return 1, 1
		}
		return st.Bavail, st.Blocks
	}
	avail, total := free()
	if float64(avail) >= cleanerFloor*float64(total) || (c.stalled > 0 && avail <= c.stalled) {
		return
	}
	start, last, best := time.Now(), time.Now(), avail
	for float64(avail) < cleanerFloor*float64(total) && time.Since(last) < cleanerStall {
		time.Sleep(100 * time.Millisecond)
		if avail, total = free(); avail > best {
			best, last = avail, time.Now()
		}
	}
	c.waits++
	c.waited += time.Since(start)
	if float64(avail) < cleanerFloor*float64(total) {
		c.stalled = max(avail, 1)
	}
}

// ScaledPeriod returns the cleaner's period in the clock's seconds for a
// replay that has passed ms of the device's time in wall, and whether a
// cleaner that has cur seconds (-1: its configuration's) must restart with
// it: a first time, or when cur is off by more than a factor of two.
func ScaledPeriod(period time.Duration, ms int64, wall time.Duration, cur int) (int, bool) {
	speed := float64(ms) / float64(max(wall.Milliseconds(), 1))
	s := int(math.Ceil(period.Seconds() / speed))
	return s, cur < 0 || s > 2*cur || 2*s < cur
}

// Finish puts the cleaner back on its configuration for the tests after
// the replay, and says what the replay's cleaner ran with.
func (c *CleanerClock) Finish(elapsed time.Duration, span int64) string {
	if c == nil {
		return ""
	}
	if c.restarts > 0 {
		StopCleaner(c.dir)
		StartCleaner(c.part, c.part.Device, c.dir)
	}
	if c.seconds < 0 {
		return fmt.Sprintf("%s of the device's time; the replay was over before its speed was known (%s), so the cleaner kept its configuration",
			c.period, elapsed.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s of the device's time, scaled to the replay's %.0fx: %s; started %d time(s); the replay waited %s for it to clean, %d time(s)",
		c.period, float64(span)/float64(max(elapsed.Milliseconds(), 1)), c.note, c.restarts, c.waited.Round(time.Millisecond), c.waits)
}

// StopCleaner stops the cleaner of the mount at dir, if one runs, and
// waits for it to go: it holds the filesystem open.
func StopCleaner(dir string) {
	cleaners.Lock()
	pid, ok := cleaners.pids[dir]
	delete(cleaners.pids, dir)
	cleaners.Unlock()
	if !ok {
		return
	}
	unix.Kill(pid, unix.SIGTERM)
	for i := 0; i < 100 && Alive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if Alive(pid) {
		unix.Kill(pid, unix.SIGKILL)
		for i := 0; i < 20 && Alive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Alive reports whether pid runs (a zombie does not count).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// FindProcess finds the daemon that runs argv, by its command line (its
// program by any path, LookPath's or the daemon's own).
func FindProcess(argv []string) (int, error) {
	for try := 0; try < 40; try++ {
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, "cmdline"))
			if err != nil {
				continue
			}
			f := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			if len(f) != len(argv) || filepath.Base(f[0]) != filepath.Base(argv[0]) || !slices.Equal(f[1:], argv[1:]) {
				continue
			}
			pid, err := strconv.Atoi(filepath.Base(d))
			if err == nil && pid != os.Getpid() && Alive(pid) {
				return pid, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, errors.New("it started, but no process of it runs")
}
