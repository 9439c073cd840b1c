package qemu

import "syscall"

// procAttr makes the kernel kill QEMU when the process that started it
// dies, so that a crashed test or fsbench leaves no VM running.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
