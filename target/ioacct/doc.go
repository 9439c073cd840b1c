// Package ioacct is the target's I/O accounting: around an iteration of
// a step that writes, what the workload asked to write, what the
// partition's block device wrote, discarded and flushed, and which tasks
// submitted those writes (a histogram trigger in tracefs); the request
// trace of a block device as the flash model reads it (BlockCapture);
// and, in QEMU, the emulator's own counters of the disk, asked for over a
// serial port (HostPort), to check the guest's.
//
// It adds its figures to a step's outcome and never decides what a test
// measures.
package ioacct
