package qemu

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/hostio"
)

// Command returns the QEMU command line for m (argv[0] is the program
// name) with the serial console connected, as a client, to the unix
// socket at console. m.Accel must be "kvm" or "tcg": Start resolves
// "auto" first.
func (m Machine) Command(console string) ([]string, error) {
	m, err := m.normalized()
	if err != nil {
		return nil, err
	}
	if m.Accel != "kvm" && m.Accel != "tcg" {
		return nil, fmt.Errorf("qemu: Command needs the accelerator decided (kvm or tcg), not %q", m.Accel)
	}
	argv := []string{"qemu-system-" + m.Arch.QEMU(), "-nodefaults", "-no-user-config", "-nographic"}
	cpu := "host"
	if m.Accel == "tcg" {
		// x86_64: "max" gives the guest SSE4.2 and friends, so that e.g.
		// crc32c_intel loads as on real hardware, at no cost in boot time
		// (3.83 s vs 3.92 s with qemu64 to the no-root panic). aarch64:
		// cortex-a57, because "max" adds pointer authentication, which
		// TCG emulates slowly. arm: cortex-a15, the ARMv7 core with LPAE
		// that Debian's armmp-lpae kernel needs.
		cpu = map[arch.Arch]string{arch.X86_64: "max", arch.ARM64: "cortex-a57", arch.ARM: "cortex-a15"}[m.Arch]
	}
	machine := MachineType(m.Arch)
	argv = append(argv,
		"-machine", machine, "-accel", m.Accel, "-cpu", cpu,
		"-m", strconv.Itoa(m.MemoryMiB), "-smp", strconv.Itoa(m.CPUs))
	if m.Firmware != "" {
		argv = append(argv, "-bios", m.Firmware)
	} else {
		argv = append(argv, "-kernel", m.Kernel)
		if m.Initrd != "" {
			argv = append(argv, "-initrd", m.Initrd)
		}
		argv = append(argv, "-append", m.cmdline())
	}
	argv = append(argv,
		"-chardev", "socket,id=console,path="+optValue(console),
		"-serial", "chardev:console")
	if m.NoReboot {
		argv = append(argv, "-no-reboot")
	}
	for i, d := range m.Disks {
		id := "disk" + strconv.Itoa(i)
		argv = append(argv, "-drive", "file="+optValue(d.Path)+",format="+d.Format+",if=none,id="+id)
		slot := m.pciSlot(i)
		switch d.Interface {
		case Virtio:
			argv = append(argv, "-device", "virtio-blk-pci,drive="+id+slot)
		case NVMe:
			argv = append(argv, "-device", "nvme,drive="+id+",serial=fsbench"+strconv.Itoa(i)+slot)
		case SD:
			argv = append(argv, "-device", "sdhci-pci"+slot, "-device", "sd-card,drive="+id)
		}
	}
	if m.Watchdog {
		argv = append(argv, "-device", "i6300esb", "-action", "watchdog=reset")
	}
	if m.HostCounters {
		if m.qmpSock == "" || m.ioSock == "" {
			return nil, fmt.Errorf("qemu: HostCounters needs the sockets Start makes")
		}
		argv = append(argv,
			"-chardev", "socket,id=qmp,path="+optValue(m.qmpSock), "-mon", "chardev=qmp,mode=control",
			"-device", "virtio-serial-pci"+m.pciSlot(len(m.Disks)),
			"-chardev", "socket,id=hostio,path="+optValue(m.ioSock),
			"-device", "virtserialport,chardev=hostio,name="+hostio.PortName)
	}
	return argv, nil
}

// pciSlot is the ",addr=N" option that places the controller of disk i,
// or "" where QEMU's own choice serves. U-Boot's device tree for QEMU's
// x86 machines reserves slot 2 for the VGA that -nodefaults leaves out,
// and does not see a disk there: under that firmware the disks take slots
// 3 and on, in their order.
func (m Machine) pciSlot(i int) string {
	if m.Firmware == "" || m.Arch != arch.X86_64 {
		return ""
	}
	return ",addr=" + strconv.Itoa(3+i)
}

// optValue escapes a value inside a QEMU option list, where "," separates
// options and ",," stands for a comma.
func optValue(s string) string { return strings.ReplaceAll(s, ",", ",,") }

// MachineType is the QEMU machine fsbench emulates for a board of
// architecture a: q35 for x86_64, virt for arm64 and arm.
func MachineType(a arch.Arch) string {
	if a == arch.ARM64 || a == arch.ARM {
		return "virt"
	}
	return "q35"
}

// UBootFirmware is Debian's u-boot-qemu build of U-Boot for QEMU's
// machine of architecture a, which boots the first disk's extlinux.conf
// or boot.scr with its distro boot. On x86_64 it is the 32-bit build
// (qemu-x86), which starts 64-bit kernels through their 32-bit entry: the
// 64-bit build of Debian 12 (U-Boot 2023.01) resets the machine when it
// jumps to the kernel.
func UBootFirmware(a arch.Arch) (string, error) {
	name := map[arch.Arch]string{arch.X86_64: "qemu-x86/u-boot.rom", arch.ARM64: "qemu_arm64/u-boot.bin", arch.ARM: "qemu_arm/u-boot.bin"}[a]
	if name == "" {
		return "", fmt.Errorf("u-boot-qemu has no U-Boot for a QEMU %s machine", a)
	}
	p := "/usr/lib/u-boot/" + name
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is missing: install Debian's u-boot-qemu", p)
	}
	return p, nil
}
