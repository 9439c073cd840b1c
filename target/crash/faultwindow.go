package crash

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultWindows counts the I/O that reached a dm-flakey device while its
// table was faulty. dm-flakey passes I/O through for up, then misbehaves
// for down, and again, timed from the table's load; a writer that is done
// before the first faulty window opens (or a flapping one that is idle in
// every window) meets no fault at all, and its iteration says nothing
// about how the filesystem survives one. The device's own counters
// (/sys/block/dm-N/stat) are read at every window's opening and closing:
// the I/O completed in between, in the direction the fault hits, reached
// the faulty table. The windows are timed from a moment taken just before
// the table's load, so they never open after the kernel's, and each is
// widened by windowMargin on both sides: the kernel times them in whole
// jiffies, and the counters count an I/O when it completes, which may be
// after its window closed. An I/O the fault met is never missed; one that
// completes in the margin before a window may be counted.
type FaultWindows struct {
	stat     string // the device's stat file
	dirs     faultDirs
	up, down time.Duration
	margin   time.Duration
	start    time.Time
	stop     chan struct{}
	done     chan struct{}

	mu      sync.Mutex
	opened  bool
	base    uint64 // the count at the current window's opening
	counted uint64 // over the windows closed so far
	windows int    // windows opened so far
	err     error
}

// faultDirs are the directions of I/O a fault hits.
type faultDirs struct{ reads, writes bool }

// FaultDirections says which I/O a dm_flakey fault changes: corrupted
// or dropped writes only writes, corrupted reads only reads, and
// error_all (the default) both.
func FaultDirections(fault string) faultDirs {
	switch fault {
	case "corrupt_writes", "drop_writes", "error_writes":
		return faultDirs{writes: true}
	case "corrupt_reads":
		return faultDirs{reads: true}
	}
	return faultDirs{reads: true, writes: true}
}

// WatchFaults starts counting on device kname (dm-N), whose table was
// loaded just after start.
func WatchFaults(kname string, dirs faultDirs, up, down time.Duration, start time.Time) *FaultWindows {
	return startWindows("/sys/block/"+kname+"/stat", dirs, up, down, windowMargin, start)
}

func startWindows(stat string, dirs faultDirs, up, down, margin time.Duration, start time.Time) *FaultWindows {
	w := &FaultWindows{stat: stat, dirs: dirs, up: up, down: down, margin: margin, start: start,
		stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// windowMargin widens every faulty window on both sides.
const windowMargin = 50 * time.Millisecond

func (w *FaultWindows) run() {
	defer close(w.done)
	period := w.up + w.down
	for k := 0; ; k++ {
		open := w.start.Add(time.Duration(k)*period + w.up)
		if !w.sleepUntil(open.Add(-w.margin)) {
			return
		}
		w.mark(true)
		// Windows closer than twice the margin merge into one.
		if !w.sleepUntil(open.Add(w.down + w.margin)) {
			return
		}
		if w.up > 2*w.margin {
			w.mark(false)
		}
	}
}

// sleepUntil waits until t; false when stopped first.
func (w *FaultWindows) sleepUntil(t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-w.stop:
		return false
	}
}

// mark opens or closes a faulty window at the device's current count.
func (w *FaultWindows) mark(open bool) {
	n, err := w.count()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil && w.err == nil {
		w.err = err
	}
	switch {
	case open && w.opened:
		// still open (merged windows)
	case open:
		w.opened, w.base = true, n
		w.windows++
	case w.opened:
		w.opened = false
		w.counted += n - min(n, w.base)
	}
}

// Finish stops the counting, closes an open window at the device's
// current count, and returns the I/O that reached the faulty table and
// how many faulty windows opened.
func (w *FaultWindows) Finish() (ios uint64, windows int, err error) {
	close(w.stop)
	<-w.done
	w.mark(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counted, w.windows, w.err
}

// count reads the I/O the device completed in the fault's directions:
// reads (field 1), writes (field 5), discards (field 12) and flushes
// (field 16) of Documentation/block/stat.rst, as far as the kernel
// gives them.
func (w *FaultWindows) count() (uint64, error) {
	b, err := os.ReadFile(w.stat)
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 11 {
		return 0, fmt.Errorf("%s: %d fields, want at least 11", w.stat, len(f))
	}
	field := func(i int) uint64 {
		if i >= len(f) {
			return 0
		}
		n, _ := strconv.ParseUint(f[i], 10, 64)
		return n
	}
	var n uint64
	if w.dirs.reads {
		n += field(0)
	}
	if w.dirs.writes {
		n += field(4) + field(11) + field(15)
	}
	return n, nil
}
