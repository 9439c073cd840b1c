package imagegen

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// defaultScratch is where glibc's shm_open keeps its files: a tmpfs on
// every systemd or Debian system, 64MiB in a default Docker container.
const defaultScratch = "/dev/shm"

// memoryRoom is the smaller of what the tmpfs at dir and the memory
// (MemAvailable) have free, or 0 when dir is not a writable tmpfs.
func memoryRoom(dir string) int64 {
	if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
		return 0
	}
	free := tmpfsFree(dir)
	if avail := memAvailable(); avail < free {
		free = avail
	}
	return free
}

// tmpfsFree is what the tmpfs at dir has free for this user, or 0 when
// dir is on another filesystem.
func tmpfsFree(dir string) int64 {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || st.Type != unix.TMPFS_MAGIC {
		return 0
	}
	return int64(st.Bavail) * st.Bsize
}

// memAvailable reads MemAvailable from /proc/meminfo: memory the kernel
// can hand out without swapping. 0 when it cannot be read.
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kib << 10
		}
	}
	return 0
}

// processAlive reports whether process pid exists (kill with signal 0;
// EPERM means it does, as another user's).
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// ownedByMe reports whether e belongs to this process's user.
func ownedByMe(e fs.DirEntry) bool {
	fi, err := e.Info()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
