package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Kernel functions a thread sleeps in while it waits for tty input: a
// blocking read(2) on a tty (n_tty_read waits in wait_woken), select(2)
// and poll(2) (pyserial waits in select before each read).
var inputWaits = []string{"wait_woken", "poll_schedule_timeout", "do_select", "do_sys_poll"}

// waitReady waits until process pid has path open and one of its threads
// sleeps waiting for input. Only then may the playback start: grabserial
// flushes the port's input queue (tcflush) after opening it, and a byte
// written before a tool waits for input is stamped late for a reason that
// has nothing to do with the tool.
func waitReady(pid int, path string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if hasOpen(pid, path) && waitsForInput(pid) {
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

func hasOpen(pid int, path string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == path {
			return true
		}
	}
	return false
}

func waitsForInput(pid int) bool {
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
