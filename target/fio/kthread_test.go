package fio

import (
	"runtime"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses; fields count from the last ')'.
	line := "4242 (a) b (c)) S 2 0 0 0 -1 2129984 0 0 0 0 17 23 0 0 20 0 1 0 987 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 1 0 0 0 0 0\n"
	st, ok := parseStat([]byte(line))
	if !ok || st.comm != "a) b (c)" || st.ppid != 2 || st.utime != 17 || st.stime != 23 || st.start != 987 {
		t.Fatalf("parsed %+v %v", st, ok)
	}
	if _, ok := parseStat([]byte("12 (short) S 2 0")); ok {
		t.Fatal("a truncated line parsed")
	}
	for comm, want := range map[string]string{
		"kworker/u8:2-events_unbound": "kworker", "jbd2/vda-8": "jbd2", "f2fs_ckpt-254:1": "f2fs_ckpt-254:1", "kswapd0": "kswapd0",
	} {
		if got := kthreadName(comm); got != want {
			t.Errorf("kthreadName(%q) = %q, want %q", comm, got, want)
		}
	}
}

func TestReadKthreads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kernel threads are a Linux thing")
	}
	before, err := readKthreads("/proc")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, k := range before {
		names[k.name] = true
	}
	if !names["kthreadd"] || len(before) < 5 {
		t.Fatalf("%d kernel threads, names %v: want kthreadd and its children", len(before), names)
	}
	// A thread that appears in between counts in full, one that used no
	// CPU does not appear.
	after := kthreadTimes{}
	for id, k := range before {
		after[id] = k
	}
	after[kthreadID{pid: 1 << 30}] = kthreadTicks{name: "new", ticks: 7}
	d := kthreadDelta(before, after, 2*time.Second)
	if d.Ticks != 7 || len(d.ByName) != 1 || d.ByName[0] != (NamedTicks{"new", 7}) || d.WallMS != 2000 {
		t.Fatalf("delta %+v", d)
	}
	if _, err := readKthreads(t.TempDir()); err == nil {
		t.Fatal("no error for a /proc without kernel threads")
	}
}
