package qemu

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/wire/arch"
)

// Machine describes one VM.
type Machine struct {
	// Arch is arch.X86_64 (q35), arch.ARM64 or arch.ARM (virt), in any
	// of its spellings ("aarch64" is taken as arch.ARM64). Empty means
	// x86_64.
	Arch arch.Arch
	// Kernel is the kernel file QEMU loads with -kernel: on x86_64 a
	// bzImage or, faster under TCG, the PVH vmlinux (see BootKernel); on
	// aarch64 an Image.
	Kernel string
	Initrd string // optional initramfs
	// Firmware, when set, is the machine's firmware (-bios): a bootloader
	// such as Debian's u-boot-qemu, which boots the disk by itself.
	// Kernel, Initrd and Append are then not used.
	Firmware string
	// Append is the kernel command line. console=ttyS0 (x86_64) or
	// console=ttyAMA0 (aarch64) is put first unless it holds a console=
	// already, since the serial console is the only output there is.
	Append []string
	Disks  []Disk
	// MemoryMiB is the guest RAM, 512 when 0. CPUs is 1 when 0: under TCG
	// every vCPU is a host thread, and tests boot VMs side by side.
	MemoryMiB int
	CPUs      int
	// Watchdog adds an emulated Intel 6300ESB (a PCI device, so on both
	// architectures; its driver is the i6300esb module) and tells QEMU to
	// reset the machine when it fires (-action watchdog=reset).
	Watchdog bool
	// Accel is "auto" (or empty), "kvm" or "tcg". "auto" uses KVM when
	// ProbeKVM says it works for this architecture.
	Accel string
	// NoReboot makes a guest reboot end QEMU (-no-reboot) instead of
	// resetting the machine.
	NoReboot bool
	// HostCounters gives the guest a virtio serial port named
	// hostio.PortName on which it asks for QEMU's counters of the first
	// disk (QMP query-blockstats), to check its own I/O statistics with
	// (see package wire/hostio). The port's driver is virtio_console.
	HostCounters bool

	// The sockets start makes for the QMP monitor and the counters' port
	// when HostCounters is set.
	qmpSock, ioSock string
}

// Disk is one disk image attached to the machine.
type Disk struct {
	Path string
	// Format is "raw" (or empty): the images fsbench builds are raw.
	Format string
	// Interface is "virtio" (or empty; the guest sees vda, vdb, ... in
	// order), "nvme" (nvme0n1, nvme1n1, ...) or "sd" (an SD card behind
	// an SDHCI PCI controller: mmcblk0; one at most).
	Interface string
}

// Interfaces of a Disk.
const (
	Virtio = "virtio"
	NVMe   = "nvme"
	SD     = "sd"
)

// normalized returns m with its defaults filled in, or the first thing
// QEMU would refuse, said in terms of the Machine.
func (m Machine) normalized() (Machine, error) {
	a, err := arch.Parse(string(cmp.Or(m.Arch, arch.X86_64)))
	if err != nil || (a != arch.X86_64 && a != arch.ARM64 && a != arch.ARM) {
		return m, fmt.Errorf("qemu: architecture %q: want x86_64, aarch64 or arm", m.Arch)
	}
	m.Arch = a
	switch m.Accel {
	case "":
		m.Accel = "auto"
	case "auto", "kvm", "tcg":
	default:
		return m, fmt.Errorf("qemu: accelerator %q: want auto, kvm or tcg", m.Accel)
	}
	if m.MemoryMiB == 0 {
		m.MemoryMiB = 512
	}
	if m.CPUs == 0 {
		m.CPUs = 1
	}
	if m.MemoryMiB < 64 || m.CPUs < 1 || m.CPUs > 64 {
		return m, fmt.Errorf("qemu: %d MiB and %d CPUs: want at least 64 MiB and 1 to 64 CPUs", m.MemoryMiB, m.CPUs)
	}
	files := []struct{ what, path string }{{"kernel", m.Kernel}, {"initrd", m.Initrd}}
	if m.Firmware != "" {
		if m.Kernel != "" || m.Initrd != "" {
			return m, fmt.Errorf("qemu: firmware %s boots the disk; the machine takes no kernel or initrd besides it", m.Firmware)
		}
		files = []struct{ what, path string }{{"firmware", m.Firmware}}
	}
	for _, p := range files {
		if p.path == "" && p.what == "initrd" {
			continue
		}
		if fi, err := os.Stat(p.path); err != nil || !fi.Mode().IsRegular() {
			return m, fmt.Errorf("qemu: %s %q is not a readable file", p.what, p.path)
		}
	}
	for _, a := range m.Append {
		if strings.ContainsAny(a, "\n\x00") {
			return m, fmt.Errorf("qemu: kernel parameter %q contains a newline or NUL", a)
		}
	}
	m.Disks = slices.Clone(m.Disks)
	sds := 0
	for i := range m.Disks {
		d := &m.Disks[i]
		if d.Interface == "" {
			d.Interface = Virtio
		}
		if d.Format == "" {
			d.Format = "raw"
		}
		if err := d.check(); err != nil {
			return m, fmt.Errorf("qemu: disk %d (%s): %w", i, d.Path, err)
		}
		if d.Interface == SD {
			sds++
		}
	}
	if sds > 1 {
		return m, errors.New("qemu: more than one SD card: each needs an SDHCI controller of its own, and QEMU names all their buses alike")
	}
	return m, nil
}

func (d Disk) check() error {
	if d.Format != "raw" {
		return fmt.Errorf("format %q: only raw images are supported", d.Format)
	}
	fi, err := os.Stat(d.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	switch d.Interface {
	case Virtio, NVMe:
	case SD:
		// QEMU's sd-card refuses other sizes ("Invalid SD card size"),
		// because the card's CSD register encodes the capacity that way.
		if size := fi.Size(); size <= 0 || size&(size-1) != 0 {
			next := int64(1) << bits.Len64(uint64(size))
			return fmt.Errorf("QEMU's emulated SD card needs an image whose size is a power of two; this one is %d bytes "+
				"(grow it to %d bytes, e.g. truncate -s %d, or build the image with that size)", size, next, next)
		}
	default:
		return fmt.Errorf("interface %q: want virtio, nvme or sd", d.Interface)
	}
	return nil
}

// consoleDevice is the guest's name for the serial port that carries the
// console.
func (m Machine) consoleDevice() string {
	if a, _ := arch.Parse(string(m.Arch)); a == arch.ARM64 || a == arch.ARM {
		return "ttyAMA0"
	}
	return "ttyS0"
}

// cmdline is the kernel command line QEMU passes: Append, after a
// console= for the serial port unless Append names a console itself.
func (m Machine) cmdline() string {
	params := m.Append
	if !slices.ContainsFunc(params, func(p string) bool { return strings.HasPrefix(p, "console=") }) {
		params = append([]string{"console=" + m.consoleDevice()}, params...)
	}
	return strings.Join(params, " ")
}

// Modules returns the names of the kernel modules an initramfs needs to
// boot m with root filesystems of the given types: the drivers of the
// disks' interfaces, the watchdog's, and each filesystem with what it asks
// for at mount time. Pass them to initramfs.Build, which adds the hard
// dependencies; names built into the kernel are skipped there.
func (m Machine) Modules(fstypes ...string) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, d := range m.Disks {
		switch d.Interface {
		case "", Virtio:
			add("virtio_pci", "virtio_blk")
		case NVMe:
			add("nvme")
		case SD:
			add("sdhci_pci", "mmc_block")
		}
	}
	if m.Watchdog {
		add("i6300esb")
	}
	if m.HostCounters {
		add("virtio_pci", "virtio_console")
	}
	for _, t := range fstypes {
		ft, ok := filesystems.Lookup(t)
		if !ok {
			add(t)
			continue
		}
		// What the driver asks for at mount time first (crypto
		// algorithms, character sets), then the driver.
		add(ft.Kernel.MountModules...)
		add(ft.Kernel.Module)
	}
	return out
}
