package runner

import (
	"bytes"
	"errors"
	"fmt"
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
// mount(2), so it starts the partition's cleaner itself (the plan's
// Partition.Cleaner, from the image, with the image's configuration) and
// stops it before the unmount, as umount.nilfs2 does.

// cleaners are the cleaners running, by mount directory.
var cleaners = struct {
	sync.Mutex
	pids map[string]int
}{pids: map[string]int{}}

// startCleaner starts p's cleaner for its mount of dev at dir, unless one
// runs there, and returns what to record: the command and its pid, or why
// none runs. "" when the type has no cleaner.
func startCleaner(p *runplan.Partition, dev, dir string) string {
	if len(p.Cleaner) == 0 {
		return ""
	}
	cleaners.Lock()
	defer cleaners.Unlock()
	argv := make([]string, len(p.Cleaner))
	for i, a := range p.Cleaner {
		argv[i] = strings.NewReplacer("{device}", dev, "{mountpoint}", dir).Replace(a)
	}
	if pid, ok := cleaners.pids[dir]; ok && alive(pid) {
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
	pid, err := findProcess(argv)
	if err != nil {
		return fmt.Sprintf("not running: %s: %v", argv[0], err)
	}
	cleaners.pids[dir] = pid
	return fmt.Sprintf("%s (pid %d)", strings.Join(argv, " "), pid)
}

// stopCleaner stops the cleaner of the mount at dir, if one runs, and
// waits for it to go: it holds the filesystem open.
func stopCleaner(dir string) {
	cleaners.Lock()
	pid, ok := cleaners.pids[dir]
	delete(cleaners.pids, dir)
	cleaners.Unlock()
	if !ok {
		return
	}
	unix.Kill(pid, unix.SIGTERM)
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		unix.Kill(pid, unix.SIGKILL)
		for i := 0; i < 20 && alive(pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// findProcess finds the daemon that runs argv, by its command line (its
// program by any path, LookPath's or the daemon's own).
func findProcess(argv []string) (int, error) {
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
			if err == nil && pid != os.Getpid() && alive(pid) {
				return pid, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, errors.New("it started, but no process of it runs")
}
