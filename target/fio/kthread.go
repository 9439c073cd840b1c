package fio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// kthreadTimes is a snapshot of the kernel threads' CPU times, keyed by pid
// and start time so that a reused pid is not taken for the same thread.
type kthreadTimes map[kthreadID]kthreadTicks

type kthreadID struct {
	pid   int
	start uint64 // starttime, in ticks after boot
}

type kthreadTicks struct {
	name  string
	ticks int64 // utime + stime
}

// readKthreads reads /proc/[pid]/stat of kthreadd (pid 2) and its children,
// which are all the kernel threads. Processes that vanish while it reads
// are skipped.
func readKthreads(proc string) (kthreadTimes, error) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("kernel thread CPU: %w", err)
	}
	ts := kthreadTimes{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil {
			continue
		}
		st, ok := parseStat(b)
		if !ok || (st.ppid != 2 && pid != 2) {
			continue
		}
		ts[kthreadID{pid, st.start}] = kthreadTicks{name: kthreadName(st.comm), ticks: st.utime + st.stime}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("kernel thread CPU: no kernel threads in %s", proc)
	}
	return ts, nil
}

type procStat struct {
	comm         string
	ppid         int
	utime, stime int64
	start        uint64
}

// parseStat reads the fields of /proc/[pid]/stat it needs. comm may hold
// spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(b []byte) (procStat, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state); utime is field 14, starttime field 22.
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return procStat{}, false
	}
	return procStat{comm: string(b[open+1 : end]), ppid: ppid, utime: utime, stime: stime, start: start}, true
}

// kthreadName groups threads by the part of their name before '/': the
// rest is a CPU, a device or a workqueue that changes from run to run.
func kthreadName(comm string) string {
	name, _, _ := strings.Cut(comm, "/")
	return name
}

// kthreadDelta is the CPU time kernel threads used between two snapshots.
// A thread that started in between counts in full; one that ended in
// between is lost, as its ticks went with it.
func kthreadDelta(before, after kthreadTimes, wall time.Duration) *KthreadCPU {
	byName := map[string]int64{}
	var total int64
	for id, a := range after {
		d := a.ticks - before[id].ticks
		if d <= 0 {
			continue
		}
		byName[a.name] += d
		total += d
	}
	k := &KthreadCPU{WallMS: wall.Milliseconds(), Ticks: total}
	for name, t := range byName {
		k.ByName = append(k.ByName, NamedTicks{Name: name, Ticks: t})
	}
	sort.Slice(k.ByName, func(i, j int) bool { return k.ByName[i].Name < k.ByName[j].Name })
	return k
}
