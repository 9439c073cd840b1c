package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat. The kernel
// exports them in USER_HZ, which is 100 on every architecture Linux
// supports (sysconf(_SC_CLK_TCK)), whatever the kernel's own HZ.
const userHZ = 100

// kthreaddPID is the parent of every kernel thread.
const kthreaddPID = 2

// taskStat is what the runner reads of /proc/PID/stat.
type taskStat struct {
	PID, PPID int
	// Comm is the task's name. For a workqueue worker, Linux 6.x shows the
	// workqueue after the name ("kworker/0:1-events"), and that part
	// changes from one read to the next.
	Comm string
	// Start is the task's start time in ticks after boot: together with
	// PID it names a task, even when its PID is later reused.
	Start     uint64
	User, Sys time.Duration
}

// taskKey names a task across PID reuse.
type taskKey struct {
	PID   int
	Start uint64
}

func (t taskStat) key() taskKey { return taskKey{t.PID, t.Start} }

// parseTaskStat parses the text of /proc/PID/stat. Comm may hold spaces and
// parentheses, so the fields after it are counted from the last ')'.
func parseTaskStat(b []byte) (taskStat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return taskStat{}, errors.New("no (comm) field")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return taskStat{}, fmt.Errorf("pid: %w", err)
	}
	// f[0] is field 3 (state), so field n is f[n-3]: ppid 4, utime 14,
	// stime 15, starttime 22.
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return taskStat{}, fmt.Errorf("%d fields after comm, want at least 20", len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseUint(f[11], 10, 64)
	stime, err3 := strconv.ParseUint(f[12], 10, 64)
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return taskStat{}, err
	}
	return taskStat{PID: pid, PPID: ppid, Comm: string(b[open+1 : end]), Start: start,
		User: ticks(utime), Sys: ticks(stime)}, nil
}

func ticks(n uint64) time.Duration { return time.Duration(n) * (time.Second / userHZ) }

// readTaskStat reads /proc/PID/stat under proc (normally "/proc").
func readTaskStat(proc string, pid int) (taskStat, error) {
	p := filepath.Join(proc, strconv.Itoa(pid), "stat")
	b, err := os.ReadFile(p)
	if err != nil {
		return taskStat{}, err
	}
	t, err := parseTaskStat(b)
	if err != nil {
		return taskStat{}, fmt.Errorf("%s: %w", p, err)
	}
	return t, nil
}

// processCPU returns the CPU time process pid has used so far.
func processCPU(pid int) (user, sys time.Duration, err error) {
	t, err := readTaskStat("/proc", pid)
	return t.User, t.Sys, err
}

// kernelThreads lists kthreadd and its children, which are all the kernel
// threads, from proc (normally "/proc"). Tasks that end while it reads are
// left out.
func kernelThreads(proc string) ([]taskStat, error) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("listing kernel threads: %w", err)
	}
	var out []taskStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		t, err := readTaskStat(proc, pid)
		if err != nil {
			// A task that exits while it is read gives ENOENT or ESRCH.
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
				continue
			}
			return nil, err
		}
		if pid == kthreaddPID || t.PPID == kthreaddPID {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no kernel threads in %s (is it a procfs of the host's PID namespace?)", proc)
	}
	return out, nil
}

// cpuSince is the CPU time the tasks of after used since before. A task
// that started in between counts in full; one that ended in between is
// missing, as its time went with it.
func cpuSince(before, after []taskStat) (user, sys time.Duration) {
	prev := make(map[taskKey]taskStat, len(before))
	for _, t := range before {
		prev[t.key()] = t
	}
	for _, t := range after {
		p := prev[t.key()]
		user += t.User - p.User
		sys += t.Sys - p.Sys
	}
	return user, sys
}
