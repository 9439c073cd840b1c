package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/internal/command"
)

// A tool is one of the line stampers under test.
type tool struct {
	name string
	// start begins capturing on the pty slave; outputs go under dir.
	start func(slave, dir string) (session, error)
}

// session is one capture by a tool, from the open port to its stamps.
type session interface {
	// ready returns once the tool waits for input on the port.
	ready() error
	// finish waits for the tool to stop after the playback; hangup closes
	// the pty master, which ends a tool that does not stop by itself.
	finish(hangup func()) (*take, error)
}

// take is a finished session.
type take struct {
	stamps   []float64 // start of every log line, seconds from any origin
	cpu      time.Duration
	startup  time.Duration
	switches int64
	majflt   int64
	hangup   bool
}

// Time limits of a session. quitGrace is how long a tool may take to stop
// after the last byte before it is hung up; the tools quit on the last
// line, so only a tool that missed it waits that long.
const (
	readyTimeout = 10 * time.Second
	quitGrace    = 3 * time.Second
	hangupGrace  = 3 * time.Second
)

// external runs a program that prints "[abs delta] line" on stdout.
type external struct {
	cmd     *exec.Cmd
	slave   string
	out     string
	errPath string
	exited  chan struct{}
	waitErr error
	startup time.Duration
	lines   []logLine
	reset   int
}

// externalTool makes a tool of a command line built for a slave path.
func externalTool(name string, argv func(slave string) []string, l *bootLog, reset int) tool {
	return tool{name: name, start: func(slave, dir string) (session, error) {
		args := argv(slave)
		s := &external{
			slave:   slave,
			out:     filepath.Join(dir, name+".out"),
			errPath: filepath.Join(dir, name+".err"),
			exited:  make(chan struct{}),
			lines:   l.lines,
			reset:   reset,
		}
		stdout, err := os.Create(s.out)
		if err != nil {
			return nil, err
		}
		defer stdout.Close()
		stderr, err := os.Create(s.errPath)
		if err != nil {
			return nil, err
		}
		defer stderr.Close()
		s.cmd = exec.Command(args[0], args[1:]...)
		s.cmd.Stdout, s.cmd.Stderr = stdout, stderr // files: no pipe copying in this process
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		done, err := command.StartHeld(s.cmd)
		if err != nil {
			return nil, err
		}
		go func() {
			s.waitErr = <-done
			close(s.exited)
		}()
		return s, nil
	}}
}

func (s *external) ready() error {
	pid := s.cmd.Process.Pid
	if err := waitReady(pid, s.slave, s.exited, readyTimeout); err != nil {
		return fmt.Errorf("%w%s", err, s.stderrTail())
	}
	s.startup = cpuSoFar(pid)
	return nil
}

func (s *external) finish(hangup func()) (*take, error) {
	c := &take{startup: s.startup}
	select {
	case <-s.exited:
	case <-time.After(quitGrace):
		c.hangup = true
		hangup()
		select {
		case <-s.exited:
		case <-time.After(hangupGrace):
			_ = s.cmd.Process.Kill()
			<-s.exited
			return nil, fmt.Errorf("still running %s after the hangup; killed%s", hangupGrace, s.stderrTail())
		}
	}
	if s.waitErr != nil {
		return nil, fmt.Errorf("%w%s", s.waitErr, s.stderrTail())
	}
	st := s.cmd.ProcessState
	c.cpu = st.UserTime() + st.SystemTime()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		c.switches, c.majflt = ru.Nvcsw+ru.Nivcsw, ru.Majflt
	}
	out, err := os.ReadFile(s.out)
	if err != nil {
		return nil, err
	}
	if c.stamps, err = parseStamps(string(out), s.lines, s.reset); err != nil {
		return nil, fmt.Errorf("%s: %w", s.out, err)
	}
	return c, nil
}

func (s *external) stderrTail() string {
	b, _ := os.ReadFile(s.errPath)
	t := strings.TrimSpace(string(b))
	if len(t) > 400 {
		t = "..." + t[len(t)-400:]
	}
	if t == "" {
		return ""
	}
	return ": " + t
}
