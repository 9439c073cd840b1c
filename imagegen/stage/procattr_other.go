//go:build !linux

package stage

import "syscall"

// deathSignal: only Linux can signal a child when its parent dies; a
// crashed build elsewhere leaves faked running.
func deathSignal() *syscall.SysProcAttr { return nil }
