//go:build linux

package capture

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// restEvery bounds how long the reading goroutine reads without passing
// through the Go scheduler.
//
// The runtime's monitor thread (sysmon) takes a goroutine that has gone
// 10 ms without being scheduled for one hogging its P. A goroutine that
// only loops over read(2) never is: a system call keeps its P. So after
// 10 ms the monitor takes the P away from every read(2) it finds
// blocked, however short: the P goes idle, the monitor sleeps, the return
// from read(2) must fetch an idle P and wake the monitor, which polls
// every 20 µs until it takes the P again. At one byte per read that is a
// wake-up of the monitor every few bytes, a third of the capture's CPU
// time. A pass through the scheduler every few milliseconds keeps the
// goroutine from looking stuck, and the monitor steps in only when a read
// blocks for 10 ms: once per pause of the console. The pass takes the
// reading thread a microsecond or two; the runtime may wake an idle
// thread for it, which finds nothing to do.
const restEvery = 5 * time.Millisecond

// restAfterWake is how long after waking the consumer the reading
// goroutine does not rest: the thread that the wake-up set looking for
// work could take the goroutine from its thread meanwhile.
const restAfterWake = time.Millisecond

// rest passes the reading goroutine through the scheduler. A locked
// goroutine cannot do that by itself: its thread hands its P to another
// thread and waits for that one to hand it back, which takes as long as
// that thread waits for a CPU. So the lock is dropped for the pass. The
// goroutine normally resumes at once on the same thread; when another
// thread took it meanwhile, its raised priority moves with it. (A
// goroutine already queued on the thread's P would run first, with the
// raised priority; none is, as the consumer is woken after the pass.)
func (r *Reader) rest() {
	runtime.UnlockOSThread()
	runtime.Gosched()
	runtime.LockOSThread()
	r.rested = time.Now()
	if r.prio.sched == "" {
		return
	}
	if tid := unix.Gettid(); tid != r.tid {
		r.prio.follow(r.tid)
		r.tid = tid
	}
}
