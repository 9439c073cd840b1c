package filesystems

import "sort"

// The traits below are what the rest of fsbench knows of a filesystem
// type beyond its mkfs tool: the kernel configuration that mounts it, the
// packages its programs come from on the build host and on the target,
// how tests read an image back, the partition type it gets and whether a
// bootloader reads it. Every other package reads them from the Type, so
// that a type is known in its own file of this package and nowhere else
// (TestEveryTypeIsComplete holds each type to it).

// Kernel is what a Linux kernel needs to mount a filesystem type.
type Kernel struct {
	// Config are the kernel options of the driver and the tristate
	// helpers that follow it (FAT's code pages), without "CONFIG_":
	// built in or modules, as the kernel is built.
	Config []string
	// Bools are boolean options that must be y beside the driver (ext4
	// mounting ext2).
	Bools []string
	// Module is the driver's module name, the one an initramfs loads to
	// mount the type ("ext4" for ext2 and ext3).
	Module string
	// MountModules are modules the driver asks for at mount time that the
	// module's hard dependencies do not bring (the crypto algorithms it
	// allocates, the character sets), loaded before Module. Empty when it
	// needs none.
	MountModules []string
	// FeatureConfig maps a feature of Spec.Features that the driver can
	// mount only with an option of its own (f2fs compression) to that
	// option.
	FeatureConfig map[string]string
	// CompressorFlag is the mkfs option that names the compressor
	// ("-comp", "-z"), and Compressors maps each compressor it may name to
	// the kernel option that decompresses it; "*" stands for any.
	CompressorFlag string
	Compressors    map[string]string
}

// Program is one program of a filesystem type: one its build runs on
// the build host (Type.Tools), one a test runs on the target (its
// checker, mkfs and cleaner, under any of the names a plan may give
// them), or both.
type Program struct {
	Name string
	// Debian is the Debian package with the program, for the build host
	// and for the target tools of a busybox userland.
	Debian string
	// BuildrootHost is the Buildroot option that builds the program into
	// HOST_DIR; "" when Buildroot has none, and the build host's PATH
	// provides it (a note of buildvars says so).
	BuildrootHost string
	// YoctoNative is the native recipe that puts the program into an
	// image's sysroot; "" when none exists, and it cannot run inside
	// bitbake.
	YoctoNative string
	// Data are the files the program reads at run time besides its
	// libraries, relative to "/" (mke2fs.conf): a target userland carries
	// them along.
	Data []string
	// Version are the arguments that make a host tool print its version
	// (somewhere in its output, on a line with a dotted number), for the
	// build's manifest: tools disagree on the flag, and some have none.
	// Empty for a program only the target runs.
	Version []string
}

// TargetPackages are the packages that put a type's own programs (mkfs,
// checker, cleaner) on a board built by Buildroot or Yocto.
type TargetPackages struct {
	Buildroot []string // BR2_PACKAGE_ options
	Yocto     []string // packages for IMAGE_INSTALL
	// YoctoLayer is the layer with the Yocto recipes when it is not
	// openembedded-core ("meta-oe", "meta-filesystems").
	YoctoLayer string
}

// ReadMethod is how fsbench's tests read an image of a type back on the
// host, to compare what it holds with what the spec put in.
type ReadMethod int

const (
	// ReadDebugfs lists the image with debugfs (ext2, ext3, ext4).
	ReadDebugfs ReadMethod = iota + 1
	// ReadUnsquashfs extracts it with unsquashfs; the owners and device
	// nodes need root.
	ReadUnsquashfs
	// ReadMtools lists it with mtools (FAT).
	ReadMtools
	// ReadMount mounts it read-only with ReadBack.MountOptions: root,
	// and the host kernel's driver.
	ReadMount
	// ReadInGuest: no offline reader exists and the host kernel has no
	// driver; only a VM can read it (f2fs, nilfs2).
	ReadInGuest
)

func (m ReadMethod) String() string {
	switch m {
	case ReadDebugfs:
		return "debugfs"
	case ReadUnsquashfs:
		return "unsquashfs"
	case ReadMtools:
		return "mtools"
	case ReadMount:
		return "mounted read-only on the host"
	case ReadInGuest:
		return "in a VM only"
	}
	return "unknown"
}

// ReadBack is how tests read an image of a type back.
type ReadBack struct {
	Method ReadMethod
	// MountOptions are the options of a ReadMount mount.
	MountOptions string
	// LostFound says that mkfs adds /lost+found (0700, root's) by itself.
	LostFound bool
}

// Program returns the type's program called name.
func (t *Type) Program(name string) (Program, bool) {
	for _, p := range t.Programs {
		if p.Name == name {
			return p, true
		}
	}
	return Program{}, false
}

// TargetProgram returns the Debian package and data files of the program
// called name of any type, for a target userland: the checkers, mkfs
// tools and cleaners a test may run there.
func TargetProgram(name string) (Program, bool) {
	for _, c := range catalogue() {
		if p, ok := c.make().Program(name); ok {
			return p, true
		}
	}
	return Program{}, false
}

// TargetPrograms lists the names of every program of every type, sorted.
func TargetPrograms() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range catalogue() {
		for _, p := range c.make().Programs {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// hostPrograms are programs that one Debian package, Buildroot host option
// and Yocto native recipe provide, and that print their version when run
// with version.
func hostPrograms(debian, buildrootHost, yoctoNative string, version []string, names ...string) []Program {
	var out []Program
	for _, n := range names {
		out = append(out, Program{Name: n, Debian: debian, BuildrootHost: buildrootHost, YoctoNative: yoctoNative,
			Version: version})
	}
	return out
}

// withVersion gives the program called name the version arguments
// version.
func withVersion(ps []Program, name string, version ...string) []Program {
	for i := range ps {
		if ps[i].Name == name {
			ps[i].Version = version
		}
	}
	return ps
}

// targetPrograms are programs only a target runs (other names of a
// checker or mkfs, tuning tools), from one Debian package.
func targetPrograms(debian string, names ...string) []Program {
	var out []Program
	for _, n := range names {
		out = append(out, Program{Name: n, Debian: debian})
	}
	return out
}

// withData gives the programs called names the data files data.
func withData(ps []Program, data []string, names ...string) []Program {
	for i := range ps {
		for _, n := range names {
			if ps[i].Name == n {
				ps[i].Data = append([]string(nil), data...)
			}
		}
	}
	return ps
}
