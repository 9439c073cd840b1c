package main

import (
	"errors"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// play writes the chunks into the pty master on schedule and returns the
// time each write(2) was issued: time.Now() just before the call, so a
// correct stamp can only be later.
//
// It sleeps with clock_nanosleep to absolute CLOCK_MONOTONIC deadlines
// counted from the start, not with time.Sleep: the Go runtime rounds
// sub-millisecond sleeps up to its poller's millisecond, which would make
// the 1.4 ms chunk spacing lumpy, and absolute deadlines keep one late
// wake-up from delaying everything after it. The master is a blocking
// descriptor, so a write into a full slave buffer waits and loses nothing.
func play(master *os.File, data []byte, chunks []chunk) ([]time.Time, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		return nil, err
	}
	start := now.Nano()
	sent := make([]time.Time, len(chunks))
	for i, c := range chunks {
		if err := sleepUntil(start + int64(c.at)); err != nil {
			return nil, err
		}
		sent[i] = time.Now()
		if _, err := master.Write(data[c.off:c.end]); err != nil {
			return nil, err
		}
	}
	return sent, nil
}

func sleepUntil(ns int64) error {
	ts := unix.NsecToTimespec(ns)
	for {
		// The runtime's preemption signal interrupts the sleep; the
		// deadline is absolute, so sleeping again is exact.
		err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
