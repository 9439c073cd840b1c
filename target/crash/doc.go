// Package crash is the target's machinery for what a power cut or a
// failing device leaves of a filesystem, and for judging it, on two axes:
//
//   - consistency (consistency.go): how the filesystem came back, from
//     the mount, the kernel's messages about the device and its checker
//     (Clean, AutoRO, AutoFix, Errors, Fsck, Fatal), repairing or
//     re-making it so that the next iteration starts sound;
//   - data (datacheck.go): whether what fsync had reported durable is
//     still there, byte for byte (Intact, LostUnsynced, LostSynced,
//     Corrupt), against a sync log kept outside the filesystem;
//
// and the crash_states campaign (states.go, replay.go, workloads.go,
// ram.go): record a workload's writes with dm-log-writes once, then
// rebuild every state a power cut could leave (each flush and FUA point,
// and more) on a snapshot, mount and check each, on workers that share
// the device and resume after a reboot. faultwindow.go counts the I/O a
// dm-flakey fault actually met.
//
// The power_loss and dm_flakey recipes (package runner) cut the power and
// inject the faults; this package never reboots the target and never
// writes a result: it returns what it found.
package crash
