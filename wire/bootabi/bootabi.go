// Package bootabi is what the host's initramfs builder and helper boots
// and the target's initramfs init (target/bootinit, target/populate) must
// agree on: where the initramfs lists its modules, where the root is
// mounted before it becomes "/", the kernel command line options of a
// helper boot and the lines its helper prints for the host to wait on.
//
// It holds names only, no behaviour, and imports nothing.
package bootabi

// Paths inside fsbench's initramfs.
const (
	// NewRoot is where the root filesystem is mounted before it becomes
	// "/"; the initramfs carries it as an empty directory.
	NewRoot = "/newroot"
	// ModuleList is where the host's initramfs builder lists the module
	// files to load, one absolute path per line, dependencies first.
	ModuleList = "/etc/fsbench/modules"
)

// Kernel command line options of a helper boot that writes a directory
// tree into a filesystem with the kernel's own driver (nilfs2).
const (
	PopulateSource = "fsbench.populate"        // the block device holding the tarball
	PopulateTarget = "fsbench.populate.target" // the block device holding the new filesystem
	PopulateFSType = "fsbench.populate.fstype" // the filesystem type to mount it as
)

// Marker lines a helper boot prints on the console: the host waits for
// one of them. PopulateOK is followed by " <entries> entries <bytes>
// bytes", PopulateFailed by ": <reason>".
const (
	PopulateOK     = "fsbench-populate: ok"
	PopulateFailed = "fsbench-populate: failed"
)
