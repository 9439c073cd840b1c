package main

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// minimalTool is the yardstick: in this process, a goroutine on its own
// thread blocks in read(2) on the slave and stamps the first byte of each
// line with the time.Now() right after the read that returned it. Nothing
// else happens between two reads, so its error is the kernel's wake-up
// latency and nothing more; a tool cannot do better than this.
func minimalTool(baud, lines int) tool {
	return minimalReader("minimal", baud, lines, false)
}

// minimalRTTool is the same reader with its thread at SCHED_FIFO 1, as
// `fsbench capture -priority high` asks for its reading thread. What it
// still gets wrong is mostly the kernel's delay in delivering the bytes
// (the pty hands them to the reader through a kworker of normal priority);
// it shares this process with the sender, though, so it is no exact floor.
func minimalRTTool(baud, lines int) tool {
	return minimalReader("minimal-rt", baud, lines, true)
}

func minimalReader(name string, baud, lines int, rt bool) tool {
	return tool{name: name, start: func(slave, _ string) (session, error) {
		s := &minimal{
			want:   lines,
			opened: make(chan error, 1),
			all:    make(chan struct{}),
			done:   make(chan struct{}),
		}
		go s.read(slave, baud, rt)
		return s, nil
	}}
}

// fifoAttr is SCHED_FIFO at the lowest real-time priority.
func fifoAttr() *unix.SchedAttr {
	return &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 1, Flags: unix.SCHED_FLAG_RESET_ON_FORK}
}

// realtimeAllowed tells whether this process may make a thread real-time.
// It tries on a goroutine that never unlocks its thread, so the runtime
// ends the thread, and its priority with it, when the goroutine returns.
func realtimeAllowed() bool {
	ok := make(chan bool)
	go func() {
		runtime.LockOSThread()
		ok <- unix.SchedSetAttr(0, fifoAttr(), 0) == nil
	}()
	return <-ok
}

type minimal struct {
	want     int
	opened   chan error
	all      chan struct{} // closed once want lines have ended
	done     chan struct{} // closed when the reader has returned
	starts   []time.Time
	cpu      time.Duration
	switches int64
	majflt   int64
}

func (s *minimal) read(slave string, baud int, rt bool) {
	defer close(s.done)
	// A thread of its own, so that its CPU time can be read with
	// RUSAGE_THREAD; unlocked before returning so the runtime keeps it,
	// unless it was made real-time: then the runtime ends it.
	runtime.LockOSThread()
	if rt {
		if err := unix.SchedSetAttr(0, fifoAttr(), 0); err != nil {
			s.opened <- fmt.Errorf("SCHED_FIFO: %w", err)
			return
		}
	} else {
		defer runtime.UnlockOSThread()
	}
	f, err := openBlocking(slave, baud)
	s.opened <- err
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 4096)
	atStart, ended := true, 0
	for {
		n, err := f.Read(buf)
		t := time.Now()
		for _, b := range buf[:n] {
			if atStart {
				s.starts = append(s.starts, t)
				atStart = false
			}
			if b == '\n' {
				atStart = true
				if ended++; ended == s.want {
					close(s.all)
				}
			}
		}
		if err != nil {
			// EIO or EOF: the master was closed.
			break
		}
	}
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) == nil {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		s.switches, s.majflt = ru.Nvcsw+ru.Nivcsw, ru.Majflt
	}
}

func (s *minimal) ready() error {
	select {
	case err := <-s.opened:
		return err
	case <-time.After(readyTimeout):
		return fmt.Errorf("did not open the slave in %s", readyTimeout)
	}
}

func (s *minimal) finish(hangup func()) (*take, error) {
	c := &take{}
	select {
	case <-s.all:
	case <-time.After(quitGrace):
		c.hangup = true
	}
	// The read loop only ends when the line hangs up.
	hangup()
	<-s.done
	if len(s.starts) < s.want {
		return nil, fmt.Errorf("saw %d line starts, the log has %d", len(s.starts), s.want)
	}
	c.cpu, c.switches, c.majflt = s.cpu, s.switches, s.majflt
	c.stamps = make([]float64, s.want)
	for i := range c.stamps {
		c.stamps[i] = s.starts[i].Sub(s.starts[0]).Seconds()
	}
	return c, nil
}
