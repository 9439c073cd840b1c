package main

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/serialcap"
)

// minimalTool is the yardstick: in this process, a goroutine on its own
// thread blocks in read(2) on the slave and stamps the first byte of each
// line with the time.Now() right after the read that returned it. Nothing
// else happens between two reads, so its error is the kernel's wake-up
// latency and nothing more; a tool cannot do better than this.
func minimalTool(baud, lines int) tool {
	return tool{name: "minimal", start: func(slave, _ string) (session, error) {
		s := &minimal{
			want:   lines,
			opened: make(chan error, 1),
			all:    make(chan struct{}),
			done:   make(chan struct{}),
		}
		go s.read(slave, baud)
		return s, nil
	}}
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

func (s *minimal) read(slave string, baud int) {
	defer close(s.done)
	// A thread of its own, so that its CPU time can be read with
	// RUSAGE_THREAD; unlocked before returning so the runtime keeps it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// OpenSerial: raw termios, VMIN=1, and a blocking descriptor, so that
	// Read is a plain read(2) and not the runtime poller.
	f, err := serialcap.OpenSerial(slave, serialcap.Config{Baud: baud})
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

func (s *minimal) finish(hangup func()) (*capture, error) {
	c := &capture{}
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
