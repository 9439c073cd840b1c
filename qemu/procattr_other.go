//go:build !linux

package qemu

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
