// Package arch names the board architectures fsbench builds for, and
// spells each one the way every tool that meets it does: the spec and
// fsbench itself, Go (GOARCH), Debian (dpkg), QEMU (qemu-system-*), the
// Linux kernel (ARCH= and uname -m) and ELF. Every translation between
// those spellings is made here, so that "arm64" and "aarch64" never have
// to be matched anywhere else.
//
// It is part of the wire: the host builds a runner for a board's
// architecture and the runner reports its own. It holds names only; it
// must never import a host package or touch the machine.
package arch

import (
	"fmt"
	"runtime"
	"strings"
)

// Arch is a board architecture, by fsbench's name for it (the spec's
// `arch`): X86_64, ARM64, ARM or RISCV64. The zero value is no
// architecture.
type Arch string

// The architectures fsbench builds for.
const (
	X86_64  Arch = "x86_64"
	ARM64   Arch = "arm64"
	ARM     Arch = "arm" // 32-bit ARMv7 with hardware floating point (armhf)
	RISCV64 Arch = "riscv64"
)

// spelling is how each tool writes one architecture.
type spelling struct {
	goarch, goarm string
	debian        string // dpkg --print-architecture
	qemu          string // qemu-system-<qemu>
	kernel        string // the kernel's ARCH=
	uname         string // uname -m
	triplet       string // Debian's multiarch tuple
	image         string // the kernel image its build makes
	flavour       string // Debian's kernel flavour: linux-image-<flavour>
	// machine and class are the e_machine and EI_CLASS of its ELF
	// binaries, as numbers: debug/elf would add its DWARF and
	// decompressors to the target runner, which links this package.
	machine uint16
	class   uint8
	// aliases are further names users and tools write for it.
	aliases []string
}

// The e_machine and EI_CLASS values of the ELF specification.
const (
	emARM      = 40
	emX86_64   = 62
	emAArch64  = 183
	emRISCV    = 243
	elfClass32 = 1
	elfClass64 = 2
)

var spellings = map[Arch]spelling{
	X86_64: {goarch: "amd64", debian: "amd64", qemu: "x86_64", kernel: "x86", uname: "x86_64",
		triplet: "x86_64-linux-gnu", image: "bzImage", flavour: "amd64", machine: emX86_64, class: elfClass64,
		aliases: []string{"x86-64", "x64", "x8664"}},
	ARM64: {goarch: "arm64", debian: "arm64", qemu: "aarch64", kernel: "arm64", uname: "aarch64",
		triplet: "aarch64-linux-gnu", image: "Image", flavour: "arm64", machine: emAArch64, class: elfClass64,
		aliases: []string{"armv8", "armv8l"}},
	ARM: {goarch: "arm", goarm: "7", debian: "armhf", qemu: "arm", kernel: "arm", uname: "armv7l",
		triplet: "arm-linux-gnueabihf", image: "zImage", flavour: "armmp-lpae", machine: emARM, class: elfClass32,
		aliases: []string{"armv7", "armel", "arm32"}},
	RISCV64: {goarch: "riscv64", debian: "riscv64", qemu: "riscv64", kernel: "riscv", uname: "riscv64",
		triplet: "riscv64-linux-gnu", image: "Image", flavour: "riscv64", machine: emRISCV, class: elfClass64,
		aliases: []string{"riscv", "rv64"}},
}

// All lists the architectures, in the order the spec documents them.
func All() []Arch { return []Arch{X86_64, ARM, ARM64, RISCV64} }

// Parse reads an architecture in any of its spellings: fsbench's, Go's,
// Debian's, QEMU's, the kernel's uname or a common alias ("aarch64",
// "amd64", "armhf", "armv7l"). The kernel's ARCH= names are not
// accepted where they are ambiguous ("x86" is also 32-bit).
func Parse(s string) (Arch, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	for _, a := range All() {
		if n == string(a) {
			return a, nil
		}
	}
	for _, a := range All() {
		sp := spellings[a]
		for _, alt := range append([]string{sp.goarch, sp.debian, sp.qemu, sp.uname}, sp.aliases...) {
			if n == alt {
				return a, nil
			}
		}
	}
	return "", fmt.Errorf("unknown architecture %q (fsbench knows %s)", s, strings.Join(Names(), ", "))
}

// Names lists fsbench's names of the architectures.
func Names() []string {
	var out []string
	for _, a := range All() {
		out = append(out, string(a))
	}
	return out
}

// Spellings maps every other name of an architecture (Go's, Debian's,
// QEMU's, uname's and the aliases) to fsbench's, for a "did you mean".
func Spellings() map[string]string {
	out := map[string]string{}
	for _, a := range All() {
		sp := spellings[a]
		for _, alt := range append([]string{sp.goarch, sp.debian, sp.qemu, sp.uname}, sp.aliases...) {
			if alt != string(a) {
				out[alt] = string(a)
			}
		}
	}
	return out
}

// Host is the architecture of the running program, or false when fsbench
// does not build for it.
func Host() (Arch, bool) {
	a, err := FromGo(runtime.GOARCH)
	return a, err == nil
}

// FromGo returns the architecture Go calls goarch.
func FromGo(goarch string) (Arch, error) {
	for _, a := range All() {
		if spellings[a].goarch == goarch {
			return a, nil
		}
	}
	return "", fmt.Errorf("fsbench builds for no board of GOARCH %q", goarch)
}

// Valid reports whether a is one of the architectures.
func (a Arch) Valid() bool { _, ok := spellings[a]; return ok }

func (a Arch) String() string { return string(a) }

// GOARCH is Go's name: amd64, arm64, arm, riscv64.
func (a Arch) GOARCH() string { return spellings[a].goarch }

// GOARM is the GOARM a runner for a is built with ("7" for arm), or "".
func (a Arch) GOARM() string { return spellings[a].goarm }

// Debian is dpkg's name: amd64, arm64, armhf, riscv64.
func (a Arch) Debian() string { return spellings[a].debian }

// QEMU is the suffix of QEMU's system emulator, qemu-system-<QEMU>:
// x86_64, aarch64, arm, riscv64.
func (a Arch) QEMU() string { return spellings[a].qemu }

// Kernel is the kernel's ARCH= (its arch/ folder): x86, arm64, arm, riscv.
func (a Arch) Kernel() string { return spellings[a].kernel }

// Uname is what uname -m prints on a board of a: x86_64, aarch64,
// armv7l, riscv64.
func (a Arch) Uname() string { return spellings[a].uname }

// Triplet is Debian's multiarch tuple, the folder of its libraries:
// x86_64-linux-gnu, aarch64-linux-gnu, arm-linux-gnueabihf, ...
func (a Arch) Triplet() string { return spellings[a].triplet }

// KernelImage is the file name of the bootable kernel image its build
// leaves in arch/<Kernel>/boot, and the name the boot files give it:
// bzImage, Image or zImage.
func (a Arch) KernelImage() string { return spellings[a].image }

// KernelFlavour is the suffix of Debian's kernel packages for the
// architecture, linux-image-<flavour>: amd64, arm64, armmp-lpae (the
// ARMv7 kernel with large physical addresses, which QEMU's virt machine
// and every Cortex-A7/A15 board run), riscv64.
func (a Arch) KernelFlavour() string { return spellings[a].flavour }

// ELF returns the machine (e_machine) and class (EI_CLASS) of a's ELF
// binaries: debug/elf's elf.Machine and elf.Class.
func (a Arch) ELF() (machine uint16, class uint8) { return spellings[a].machine, spellings[a].class }
