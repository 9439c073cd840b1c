// Package linux holds the Linux interfaces the runner and its recipes
// drive below the filesystems they test: mount(2) with the plan's flags
// and the cleaner daemons that go beside some mounts (nilfs_cleanerd, as
// mount.nilfs2 starts it), the kernel log (/dev/kmsg), and block devices
// (their size, their write counters, the page cache before a timed read).
//
// It runs on the target only: it must link nothing but the standard
// library, golang.org/x/sys and wire/, and it never decides what a test
// measures; the runner's recipes do.
package linux
