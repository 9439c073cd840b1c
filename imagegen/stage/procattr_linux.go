package stage

import "syscall"

// deathSignal has faked terminated, which saves its state and removes its
// message queue, when the thread that started it dies.
func deathSignal() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
