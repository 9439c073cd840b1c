package driver

import "runtime"

// vmSlots bounds the VMs (and the image builds before them) that the
// package's tests run at once, across tests: the QEMU tests run in
// parallel, so that one test's last VM does not leave the other CPUs idle,
// and TCG wants a CPU per VM.
var vmSlots = make(chan struct{}, max(2, runtime.NumCPU()))

// vmSlot takes a slot and returns its release.
func vmSlot() func() {
	vmSlots <- struct{}{}
	return func() { <-vmSlots }
}
