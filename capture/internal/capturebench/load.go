package main

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/fsbench/fsbench/internal/command"
)

// spinFlag makes the program a load generator: it spins until killed.
const spinFlag = "-spin"

// spin burns one CPU. It is a process of its own, not a goroutine of the
// benchmark: busy goroutines here would hold the Ps that the in-process
// minimal reader needs when its read(2) returns, and so slow down the
// yardstick instead of loading the machine.
func spin() {
	for {
	}
}

// startLoad starts k spinning processes; stop kills them.
func startLoad(k int) (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	var dones []<-chan error
	stop = func() {
		for i, c := range cmds {
			_ = c.Process.Kill()
			<-dones[i]
		}
	}
	for range k {
		c := exec.Command(exe, spinFlag)
		c.Env = append(os.Environ(), "GOMAXPROCS=1")
		// Killed with this process, however it ends.
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		done, err := command.StartHeld(c)
		if err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
		dones = append(dones, done)
	}
	return stop, nil
}
