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

// raise applies p to the calling thread, which must be locked to its
// goroutine for good, and describes what it obtained ("" for nothing).
// Both settings are per thread: the rest of the process is untouched, and
// SCHED_FLAG_RESET_ON_FORK keeps the real-time policy from any child.
func raise(p Priority) string {
	if p != PriorityHigh {
		return ""
	}
	// Never lower what the process was started with (chrt, nice).
	cur, err := unix.SchedGetAttr(0, 0)
	if err != nil || cur.Policy == unix.SCHED_FIFO || cur.Policy == unix.SCHED_RR || cur.Policy == unix.SCHED_DEADLINE {
		return ""
	}
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: fifoPriority, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
	if unix.SchedSetAttr(0, &attr, 0) == nil {
		return fmt.Sprintf("SCHED_FIFO %d", fifoPriority)
	}
	if cur.Nice <= highNice {
		return ""
	}
	// PRIO_PROCESS with a thread ID sets that thread's nice value only.
	if unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), highNice) == nil {
		return fmt.Sprintf("nice %d", highNice)
	}
	return ""
}
