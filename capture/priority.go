//go:build linux

package capture

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Priority is how the threads that run the reading goroutine ask to be
// scheduled.
//
// A line is stamped when its bytes are read, right after the thread that
// the kernel woke for them gets a CPU. On a busy machine (a build, QEMU
// guests) a thread of normal priority can wait tens of milliseconds for
// one, and every line it reads then is stamped late. The reading goroutine
// sleeps nearly all the time and does a few microseconds of work per read,
// so a raised priority costs the rest of the machine nothing measurable.
type Priority int

const (
	// PriorityNormal leaves the threads as the process was started.
	PriorityNormal Priority = iota
	// PriorityHigh asks for nice -10 for every thread that runs the
	// reading goroutine (it needs root, CAP_SYS_NICE or RLIMIT_NICE);
	// when that is refused, the threads stay as they were, silently. It
	// never lowers what the process was started with (nice, chrt).
	//
	// The reading goroutine is not tied to one thread: the runtime runs
	// it on whichever of its threads the kernel wakes when bytes arrive,
	// a handful of threads in all. Each of them is raised the first time
	// it carries the goroutine, and keeps the priority while the Reader
	// reads, also for the other goroutines it runs meanwhile: PriorityHigh
	// suits a program that does little besides capturing, like
	// `fsbench capture`. The reading goroutine puts each back as it was
	// when it ends.
	//
	// Not a real-time policy: a SCHED_FIFO thread that goes on to run the
	// capture loop keeps the kernel's tty worker, a normal thread, from
	// handing over the rest of a burst on that CPU, and the next line is
	// stamped late (BENCHMARKS.md, "The reading goroutine waits in the
	// runtime's poller").
	PriorityHigh
)

const highNice = -10

// threadPrio is what raise obtained for a thread ("" in sched when
// nothing) and the setting the thread had before.
type threadPrio struct {
	sched string
	was   unix.SchedAttr
}

// raise applies p to thread tid of this process and describes what it
// obtained ("" for nothing). The setting is per thread, and
// SCHED_FLAG_RESET_ON_FORK keeps it from any process or thread the raised
// thread creates.
func raise(tid int, p Priority) threadPrio {
	if p != PriorityHigh {
		return threadPrio{}
	}
	cur, err := unix.SchedGetAttr(tid, 0)
	if err != nil || cur.Policy != unix.SCHED_NORMAL || cur.Nice <= highNice {
		return threadPrio{}
	}
	attr := unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: highNice, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	if unix.SchedSetAttr(tid, &attr, 0) != nil {
		return threadPrio{}
	}
	return threadPrio{sched: fmt.Sprintf("nice %d", highNice), was: *cur}
}

// lower puts thread tid back as it was before raise, best effort.
func (r threadPrio) lower(tid int) {
	if r.sched != "" {
		_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: r.was.Policy, Nice: r.was.Nice}, 0)
	}
}

// carriers raises the threads that run the reading goroutine, each once.
type carriers struct {
	p      Priority
	sched  string             // what the first thread obtained
	raised map[int]threadPrio // by thread ID
}

// newCarriers raises the calling thread; sched tells what it obtained.
// When that was nothing, no other thread is tried.
func newCarriers(p Priority) *carriers {
	c := &carriers{p: p, raised: map[int]threadPrio{}}
	if p == PriorityNormal {
		return c
	}
	tid := unix.Gettid()
	prio := raise(tid, p)
	if c.sched = prio.sched; c.sched == "" {
		c.p = PriorityNormal
		return c
	}
	c.raised[tid] = prio
	return c
}

// carry raises the calling thread unless it was already.
func (c *carriers) carry() {
	if c.p == PriorityNormal {
		return
	}
	tid := unix.Gettid()
	if _, ok := c.raised[tid]; ok {
		return
	}
	// Raised or refused, it is not tried again.
	c.raised[tid] = raise(tid, c.p)
}

// release puts every raised thread back as it was.
func (c *carriers) release() {
	for tid, prio := range c.raised {
		prio.lower(tid)
	}
	clear(c.raised)
}
