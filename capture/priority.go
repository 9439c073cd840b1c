//go:build linux

package capture

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Priority is how the thread that reads the device asks to be scheduled.
//
// A line is stamped when that thread returns from read(2). On a busy
// machine (a build, QEMU guests) a thread of normal priority can wait tens
// of milliseconds for a CPU after its byte arrived, and every line it reads
// then is stamped late. The thread sleeps in read(2) nearly all the time
// and does a few microseconds of work per read, so a real-time priority
// costs the rest of the machine nothing measurable.
type Priority int

const (
	// PriorityNormal leaves the thread as the process was started.
	PriorityNormal Priority = iota
	// PriorityHigh asks for SCHED_FIFO at priority 1, the lowest
	// real-time one: the thread runs before every normal thread and below
	// every real-time thread the system has (IRQ threads run at 50). When
	// that is refused (it needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO),
	// it asks for nice -10 (root, CAP_SYS_NICE or RLIMIT_NICE); when that
	// is refused too, the thread stays as it was, silently.
	PriorityHigh
)

const (
	fifoPriority = 1
	highNice     = -10
)

// threadPrio is what raise obtained for the calling thread ("" in sched when
// nothing) and the setting the thread had before, so that the priority
// can follow the reading goroutine to another thread (see Reader.rest).
type threadPrio struct {
	sched string
	fifo  bool // SCHED_FIFO rather than a nice value
	was   unix.SchedAttr
}

func fifoAttr() *unix.SchedAttr {
	return &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: fifoPriority, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
}

// raise applies p to the calling thread, which must be locked to its
// goroutine, and describes what it obtained ("" for nothing).
// Both settings are per thread: the rest of the process is untouched, and
// SCHED_FLAG_RESET_ON_FORK keeps the real-time policy from any child.
func raise(p Priority) threadPrio {
	if p != PriorityHigh {
		return threadPrio{}
	}
	// Never lower what the process was started with (chrt, nice).
	cur, err := unix.SchedGetAttr(0, 0)
	if err != nil || cur.Policy == unix.SCHED_FIFO || cur.Policy == unix.SCHED_RR || cur.Policy == unix.SCHED_DEADLINE {
		return threadPrio{}
	}
	if unix.SchedSetAttr(0, fifoAttr(), 0) == nil {
		return threadPrio{sched: fmt.Sprintf("SCHED_FIFO %d", fifoPriority), fifo: true, was: *cur}
	}
	if cur.Nice <= highNice {
		return threadPrio{}
	}
	// PRIO_PROCESS with a thread ID sets that thread's nice value only.
	if unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), highNice) == nil {
		return threadPrio{sched: fmt.Sprintf("nice %d", highNice), was: *cur}
	}
	return threadPrio{}
}

// follow moves what raise obtained from thread from to the calling thread,
// best effort: the calling thread gets it, from gets back what it had.
func (r threadPrio) follow(from int) {
	switch {
	case r.sched == "":
	case r.fifo:
		_ = unix.SchedSetAttr(0, fifoAttr(), 0)
		_ = unix.SchedSetAttr(from, &unix.SchedAttr{Policy: r.was.Policy, Nice: r.was.Nice}, 0)
	default:
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), highNice)
		_ = unix.Setpriority(unix.PRIO_PROCESS, from, int(r.was.Nice))
	}
}
