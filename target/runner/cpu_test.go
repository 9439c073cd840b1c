package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseTaskStat(t *testing.T) {
	// A name with spaces and parentheses, as a process may choose.
	line := "4242 (a) b (c)) S 2 0 0 0 -1 2129984 0 0 0 0 250 37 0 0 20 0 1 0 1234 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0\n"
	st, err := parseTaskStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := taskStat{PID: 4242, PPID: 2, Comm: "a) b (c)", Start: 1234, User: 2500 * time.Millisecond, Sys: 370 * time.Millisecond}
	if st != want {
		t.Errorf("got %+v, want %+v", st, want)
	}
	for _, bad := range []string{"", "12 no comm", "12 (x) S 1 2 3"} {
		if _, err := parseTaskStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestKernelThreadsAndCPUSince(t *testing.T) {
	proc := t.TempDir()
	write := func(pid, stat string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(pid, comm, ppid, utime, stime, start string) string {
		return pid + " (" + comm + ") S " + ppid + " 0 0 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0 20 0 1 0 " + start + " 0 0\n"
	}
	write("1", stat("1", "init", "0", "5", "5", "1"))
	write("2", stat("2", "kthreadd", "0", "0", "1", "2"))
	write("30", stat("30", "jbd2/loop0-8", "2", "0", "10", "300"))
	write("31", stat("31", "kworker/0:1-events", "2", "0", "3", "310"))
	write("400", stat("400", "bash", "1", "90", "90", "400"))
	os.WriteFile(filepath.Join(proc, "meminfo"), nil, 0o644)
	before, err := kernelThreads(proc)
	if err != nil || len(before) != 3 {
		t.Fatalf("kernel threads %+v, %v; want kthreadd, jbd2 and the kworker", before, err)
	}
	// jbd2 works 15 ticks, the kworker exits, its PID is reused by a new
	// kernel thread, and xfsaild starts.
	write("30", stat("30", "jbd2/loop0-8", "2", "0", "25", "300"))
	write("31", stat("31", "kworker/R-xfs-buf/loop0", "2", "0", "2", "900"))
	write("32", stat("32", "xfsaild/loop0", "2", "1", "4", "910"))
	after, err := kernelThreads(proc)
	if err != nil {
		t.Fatal(err)
	}
	user, sys := cpuSince(before, after)
	if user != 10*time.Millisecond || sys != 210*time.Millisecond {
		t.Errorf("cpu since: user %v sys %v, want 10ms and 210ms", user, sys)
	}
	names, workers := newKernelThreads(before, after)
	if len(names) != 2 || names[0] != "kworker/R-xfs-buf/loop0" || names[1] != "xfsaild/loop0" || workers != 0 {
		t.Errorf("new kernel threads %v, %d pool workers", names, workers)
	}
	if _, err := kernelThreads(t.TempDir()); err == nil {
		t.Errorf("an empty proc has kernel threads")
	}
}

func TestPoolWorkers(t *testing.T) {
	for name, pool := range map[string]bool{
		"kworker/0:1": true, "kworker/1:2H": true, "kworker/u8:4-writeback": true, "kworker/0:0-events": true,
		"kworker/u17:0": true, "kworker/1:1H-kblockd": true,
		"kworker/R-xfs-buf/loop0": false, "xfs-buf/sda2": false, "jbd2/loop0-8": false, "kworker/R-ext4-rsv-conversion": false,
	} {
		if poolWorker.MatchString(name) != pool {
			t.Errorf("%s: pool worker %v, want %v", name, !pool, pool)
		}
	}
}

// TestProcessCPU spins until the kernel has charged the process a clock
// tick or more: on a loaded machine 30 ms of wall time may bring less than
// one tick of CPU, so the spin is bounded by time, not by a fixed length.
func TestProcessCPU(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		spin := time.Now().Add(20 * time.Millisecond)
		for time.Now().Before(spin) {
		}
		user, sys, err := processCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if user+sys > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processCPU: %v user %v system after 10 s of spinning", user, sys)
		}
	}
}
