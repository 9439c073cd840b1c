package command

import (
	"os/exec"
	"runtime"
)

// StartHeld starts cmd and returns a channel that receives what cmd.Wait
// returns, once cmd has exited.
//
// A Pdeathsig in cmd.SysProcAttr fires when the thread that forked the
// child exits, not the process (golang.org/issue/27505), and the runtime
// ends a thread whose locked goroutine returns: a goroutine that raised
// its thread's priority, for one. StartHeld forks from a thread that it
// keeps locked until cmd has exited, so that no other goroutine can end
// it, and the death signal comes only when this process dies.
func StartHeld(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return done, nil
}
