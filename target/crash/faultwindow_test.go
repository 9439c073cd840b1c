package crash

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The windows are counted from a stat file in /sys/block's format that
// the test rewrites as "I/O" completes: writes before the first window
// are not counted, those in every faulty window are, whatever happens in
// the healthy parts between.
func TestFaultWindowsCountOnlyFaultyIO(t *testing.T) {
	stat := filepath.Join(t.TempDir(), "stat")
	writes := 0
	set := func(n int) {
		writes = n
		// reads, ..., writes (field 5), ..., discards (12), ..., flushes (16)
		os.WriteFile(stat, []byte(fmt.Sprintf("7 0 0 0 %d 0 0 0 0 0 0 0 0 0 0 0 0\n", n)), 0o644)
	}
	set(0)
	start := time.Now()
	// healthy 600 ms, faulty 600 ms, in turns; margin 50 ms. Each
	// change lands in the middle of its part, 250 ms from any edge.
	w := startWindows(stat, faultDirs{writes: true}, 600*time.Millisecond, 600*time.Millisecond, 50*time.Millisecond, start)
	at := func(ms int) { time.Sleep(time.Until(start.Add(time.Duration(ms) * time.Millisecond))) }
	at(300)
	set(writes + 5) // healthy: not counted
	at(900)
	set(writes + 3) // faulty
	at(1500)
	set(writes + 4) // healthy
	at(2100)
	set(writes + 2) // faulty, and still open at the end
	at(2200)
	n, windows, err := w.Finish()
	if err != nil || n != 5 || windows != 2 {
		t.Errorf("counted %d I/O in %d windows (%v), want 5 in 2", n, windows, err)
	}

	// A writer done before the first window opens met no fault.
	set(0)
	start = time.Now()
	w = startWindows(stat, faultDirs{writes: true}, time.Hour, time.Hour, 50*time.Millisecond, start)
	set(40)
	n, windows, _ = w.Finish()
	if n != 0 || windows != 0 {
		t.Errorf("counted %d I/O in %d windows before any window opened", n, windows)
	}

	// Reads do not count for a fault on writes, and a missing file is
	// an error, not a zero.
	if d := FaultDirections("corrupt_writes"); d.reads || !d.writes {
		t.Errorf("corrupt_writes hits %+v", d)
	}
	w = startWindows(filepath.Join(t.TempDir(), "none"), faultDirs{writes: true}, 0, time.Hour, 0, time.Now())
	time.Sleep(20 * time.Millisecond)
	if _, _, err := w.Finish(); err == nil {
		t.Error("a missing stat file gave no error")
	}
}
