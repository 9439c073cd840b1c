package filesystems

import (
	"sort"

	"github.com/fsbench/fsbench/internal/fields"
)

// JournalSupport says whether a filesystem type has a journal.
type JournalSupport int

const (
	// JournalNone: the type has no journal (ext2, vfat, read-only types,
	// and the log-structured or copy-on-write ones that need none).
	JournalNone JournalSupport = iota
	// JournalOptional: the journal can be switched off (ext4).
	JournalOptional
	// JournalRequired: the type always has one (ext3, xfs).
	JournalRequired
)

func (j JournalSupport) String() string {
	switch j {
	case JournalNone:
		return "none"
	case JournalOptional:
		return "optional"
	case JournalRequired:
		return "required"
	}
	return "unknown"
}

// PopulateMethod says how staged contents get into a new filesystem.
type PopulateMethod int

const (
	// PopulateNone: the tools cannot fill the filesystem offline (nilfs2).
	PopulateNone PopulateMethod = iota
	// PopulateMkfsFlag: mkfs copies a directory itself (mke2fs -d,
	// mkfs.btrfs --rootdir).
	PopulateMkfsFlag
	// PopulateTool: a separate tool runs after mkfs (sload.f2fs).
	PopulateTool
	// PopulateProtofile: mkfs reads a protofile describing the tree
	// (mkfs.xfs -p; xfsprogs 6.1 has no directory option).
	PopulateProtofile
	// PopulateMtools: mcopy writes into the FAT image after mkfs.fat.
	PopulateMtools
	// PopulateSource: the directory is the tool's input and the image its
	// output (mksquashfs, mkfs.erofs).
	PopulateSource
	// PopulateVM: no host tool writes the filesystem offline (nilfs2), so
	// fsbench build boots a QEMU helper with the new filesystem and a
	// tarball of the staged tree as disks, and the helper mounts the
	// filesystem and extracts the tree into it with the kernel's own
	// driver.
	PopulateVM
)

func (p PopulateMethod) String() string {
	switch p {
	case PopulateNone:
		return "none"
	case PopulateMkfsFlag:
		return "mkfs flag"
	case PopulateTool:
		return "separate tool"
	case PopulateProtofile:
		return "protofile"
	case PopulateMtools:
		return "mtools"
	case PopulateSource:
		return "source directory"
	case PopulateVM:
		return "QEMU helper boot"
	}
	return "unknown"
}

// Type describes one filesystem type and its host tools.
type Type struct {
	Name    string // "ext4"
	Tool    string // the mkfs binary, "mke2fs"
	Package string // the Debian package providing Tool
	// Tools lists every host binary a build of this type may run (mkfs,
	// populate helpers, checker), so that the manifest can record their
	// versions and tests can skip when one is missing.
	Tools []string
	// Checker is the read-only checker's argv prefix; the image path is
	// appended. Nil when the filesystem has no checker (nilfs2), and then
	// NoChecker says why, in words the runner reports.
	Checker   []string
	NoChecker string
	// Cleaner is the userspace garbage collector a system runs beside a
	// mounted filesystem of the type, as its mount helper starts it
	// (mount.nilfs2 starts nilfs_cleanerd): argv, with {device} and
	// {mountpoint} standing for the mount's. Nil when the kernel does the
	// type's background work itself (f2fs's and btrfs's threads).
	Cleaner []string
	// CleanerPeriod are the arguments that give the cleaner a protection
	// period, with {seconds} standing for it: segments younger than that
	// are left alone. A test that compresses time (endurance) passes the
	// period scaled to its clock. Nil when the cleaner takes none.
	CleanerPeriod []string
	ReadOnly      bool
	Journal       JournalSupport
	Populate      PopulateMethod
	// MinSize is the smallest partition the tool accepts with its most
	// favourable settings (btrfs mixed block groups, nilfs2 short segments,
	// FAT32); Resolve checks the minimum of the settings a spec chooses.
	MinSize int64
	// MaxLabel is the longest label in bytes; 0 means the tool cannot set
	// one.
	MaxLabel int
	// SetsUUID reports whether mkfs stores Spec.UUID (vfat: as the 32-bit
	// volume id derived from it); Resolve then requires one.
	SetsUUID bool
	// BlockSizes are the block sizes Spec.BlockSize may take, in bytes (for
	// vfat the cluster size); DefaultBlockSize is used when the spec gives
	// none, 0 meaning that the tool chooses.
	BlockSizes       []int64
	DefaultBlockSize int64
	// Features are the names Spec.Features may use (a leading ^ disables
	// one); nil when the tool has no feature list.
	Features []string
	// Tuning lists the typed mkfs knobs a `tuning { }` block accepts.
	Tuning []fields.Field
	// MountOptions lists what the kernel filesystem and the VFS accept.
	MountOptions []MountOption
	// Deterministic reports whether the build is bit-reproducible from the
	// derived UUIDs and SOURCE_DATE_EPOCH; Note says why not, or what it
	// takes.
	Deterministic bool
	Note          string
	// Loses lists what the populate step cannot store, so that a build
	// refuses such contents instead of changing them silently; Names does
	// the same for file names.
	Loses Losses
	Names NameRules
	// SetsInodes reports that a populate step ({debugfs_script}) sets the
	// owner and every timestamp of each entry after mkfs has copied the
	// tree, so that mkfs may read a plain contents directory where it is
	// instead of a staged copy: the copy would only have fixed those.
	SetsInodes bool
	// NoOwners reports that the image keeps no owners, permission bits or
	// device numbers (FAT: names, file data and mtimes only), so that its
	// contents need no fakeroot session to be staged.
	NoOwners bool

	// Kernel is what a kernel needs to mount the type.
	Kernel Kernel
	// Programs are the type's programs on the build host (every one of
	// Tools) and on the target (its checker, mkfs and cleaner, under the
	// names a plan may give them), with the packages they come from.
	Programs []Program
	// Target are the Buildroot and Yocto packages with the type's own
	// programs for the target.
	Target TargetPackages
	// ReadBack is how tests read an image of the type back on the host.
	ReadBack ReadBack
	// PartitionType is the partition type shortcut (plan's partition
	// types: "linux", "fat32") a partition holding the type gets when the
	// spec gives none.
	PartitionType string
	// BootFiles says that U-Boot reads boot files (kernel, device tree,
	// extlinux.conf, boot.scr) from the type.
	BootFiles bool

	resolve func(*build)
}

// Losses are the kinds of staged entries a type's populate step cannot
// keep. The zero value keeps everything.
type Losses struct {
	Symlinks, Devices, FIFOs, Sockets bool
	// Why explains the loss in an error message.
	Why string
}

// catalogue names the constructor of each type. A constructor builds its
// type afresh on each call, so that callers can never change what another
// caller sees; a lookup builds only the type it returns, since the plan
// and the build look types up for every partition and option.
// (A function, not a variable: some constructors look other types up.)
func catalogue() []entry {
	return []entry{
		{"ext2", ext2Type}, {"ext3", ext3Type}, {"ext4", ext4Type},
		{"btrfs", btrfsType}, {"f2fs", f2fsType}, {"xfs", xfsType}, {"nilfs2", nilfs2Type},
		{"vfat", vfatType}, {"squashfs", squashfsType}, {"erofs", erofsType},
	}
}

type entry struct {
	name string
	make func() *Type
}

// Lookup returns the type called name. Each call builds a fresh Type, so the
// caller may keep or change it.
func Lookup(name string) (*Type, bool) {
	for _, c := range catalogue() {
		if c.name == name {
			return c.make(), true
		}
	}
	return nil, false
}

// Names returns the names of all known types, sorted.
func Names() []string {
	var names []string
	for _, c := range catalogue() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

// TuningField returns the tuning field called name.
func (t *Type) TuningField(name string) (fields.Field, bool) {
	for _, f := range t.Tuning {
		if f.Name == name {
			return f, true
		}
	}
	return fields.Field{}, false
}

// MountOption returns the mount option called name.
func (t *Type) MountOption(name string) (MountOption, bool) {
	for _, o := range t.MountOptions {
		if o.Name == name {
			return o, true
		}
	}
	return MountOption{}, false
}
