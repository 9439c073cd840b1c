package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kernel functions a thread sleeps in while it waits for tty input: a
// blocking read(2) on a tty (n_tty_read waits in wait_woken), select(2)
// and poll(2) (pyserial waits in select before each read). A thread in
// epoll_wait (the Go runtime's poller, which fsbench waits in) counts only
// when an epoll descriptor of the process watches the slave.
var (
	inputWaits = []string{"wait_woken", "poll_schedule_timeout", "do_select", "do_sys_poll"}
	epollWaits = []string{"do_epoll_wait", "ep_poll"}
)

// waitReady waits until process pid has path open and one of its threads
// sleeps waiting for input. Only then may the playback start: grabserial
// flushes the port's input queue (tcflush) after opening it, and a byte
// written before a tool waits for input is stamped late for a reason that
// has nothing to do with the tool.
func waitReady(pid int, path string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if fds := openAs(pid, path); len(fds) > 0 && waitsForInput(pid, fds) {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("exited before opening %s", path)
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not waiting for input on %s after %s", path, timeout)
		}
	}
}

// openAs lists the descriptors of process pid that are open on path.
func openAs(pid int, path string) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var fds []string
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			fds = append(fds, e.Name())
		}
	}
	return fds
}

func waitsForInput(pid int, fds []string) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, w := range inputWaits {
			if strings.HasPrefix(string(b), w) {
				return true
			}
		}
		for _, w := range epollWaits {
			if strings.HasPrefix(string(b), w) && epollWatches(pid, fds) {
				return true
			}
		}
	}
	return false
}

// epollWatches tells whether an epoll descriptor of process pid watches
// one of fds: its fdinfo has a "tfd: N" line for each watched descriptor.
func epollWatches(pid int, fds []string) bool {
	infos, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fdinfo/*", pid))
	for _, p := range infos {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "tfd:" && slices.Contains(fds, f[1]) {
				return true
			}
		}
	}
	return false
}

// cpuSoFar is the CPU time all threads of pid have used, from the
// scheduler's nanosecond counters (the first field of schedstat), which
// are finer than the clock ticks of /proc/PID/stat.
func cpuSoFar(pid int) time.Duration {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			ns, _ := strconv.ParseInt(fields[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}
