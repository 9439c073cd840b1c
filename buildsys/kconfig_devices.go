package buildsys

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/arch"
)

// serialDrivers maps the kernel's name for a serial port, without its
// number, to the driver and its console support. Every board fsbench
// tests is followed on its serial console.
var serialDrivers = map[string][]string{
	"ttyS":   {"SERIAL_8250", "SERIAL_8250_CONSOLE"},
	"ttyAMA": {"SERIAL_AMBA_PL011", "SERIAL_AMBA_PL011_CONSOLE"},
	"ttymxc": {"SERIAL_IMX", "SERIAL_IMX_CONSOLE"},
	"ttyLP":  {"SERIAL_FSL_LPUART", "SERIAL_FSL_LPUART_CONSOLE"},
	"ttyPS":  {"SERIAL_XILINX_PS_UART", "SERIAL_XILINX_PS_UART_CONSOLE"},
	"ttySAC": {"SERIAL_SAMSUNG", "SERIAL_SAMSUNG_CONSOLE"},
	"ttyO":   {"SERIAL_OMAP", "SERIAL_OMAP_CONSOLE"},
	"ttyMSM": {"SERIAL_MSM", "SERIAL_MSM_CONSOLE"},
	"ttyAML": {"SERIAL_MESON", "SERIAL_MESON_CONSOLE"},
	"ttySIF": {"SERIAL_SIFIVE", "SERIAL_SIFIVE_CONSOLE"},
	"ttySTM": {"SERIAL_STM32", "SERIAL_STM32_CONSOLE"},
}

func (k *kbuilder) console(b plan.Board) {
	port, _, _ := strings.Cut(b.Console, ",")
	base := strings.TrimRight(port, "0123456789")
	drivers, known := serialDrivers[base]
	k.section(fmt.Sprintf("Serial console %s of board %s.", port, b.Name), kopts("y", drivers...)...)
	switch {
	case !known:
		k.note(fmt.Sprintf("Board %s: build in the driver of %s and its console support.", b.Name, port))
	case base == "ttyS" && b.Arch != arch.X86_64 && !isQEMU(b):
		k.note(fmt.Sprintf("Board %s: ttyS on an SoC is an 8250 variant; also build in its driver (CONFIG_SERIAL_8250_DW, _OMAP, _BCM2835AUX, ...).", b.Name))
	}
}

// storage adds the driver of the device the board boots from, built in:
// without an initramfs, the kernel must see the disk before it mounts root.
func (k *kbuilder) storage(b plan.Board) {
	dev := b.Storage
	var opts []Option
	var note string
	switch {
	case strings.HasPrefix(dev, "vd"):
		// QEMU attaches virtio disks over PCI (virtio-blk-pci).
		opts = kopts("y", "VIRTIO_BLK", "VIRTIO_PCI")
		opts = append(opts, k.pci(b)...)
	case strings.HasPrefix(dev, "nvme"):
		opts = append(kopts("y", "BLK_DEV_NVME"), k.pci(b)...)
	case strings.HasPrefix(dev, "mmcblk"):
		opts = kopts("y", "MMC", "MMC_BLOCK")
		if isQEMU(b) {
			// fsbench run -disk sd: an SD card behind an SDHCI PCI controller.
			opts = append(opts, kopts("y", "MMC_SDHCI", "MMC_SDHCI_PCI")...)
			opts = append(opts, k.pci(b)...)
		} else {
			note = fmt.Sprintf("Board %s: also build in its MMC host controller driver (CONFIG_MMC_SDHCI_OF_*, CONFIG_MMC_DW_*, CONFIG_MMC_SDHCI_ESDHC_IMX, ...).", b.Name)
		}
	case strings.HasPrefix(dev, "sd"):
		opts = kopts("y", "SCSI", "BLK_DEV_SD")
		note = fmt.Sprintf("Board %s: also build in the host controller in front of %s (CONFIG_SATA_AHCI, CONFIG_USB_STORAGE, CONFIG_SCSI_UFSHCD, ...).", b.Name, dev)
	default:
		note = fmt.Sprintf("Board %s: build in the driver of %s.", b.Name, dev)
	}
	k.section(fmt.Sprintf("Storage /dev/%s of board %s, built in: the kernel must see it before it mounts root.", dev, b.Name), opts...)
	if note != "" {
		k.note(note)
	}
}

// pci is what a PCI device of a QEMU machine needs: the bus, and on
// aarch64's virt machine its generic ECAM host bridge.
func (k *kbuilder) pci(b plan.Board) []Option {
	if !isQEMU(b) {
		return nil
	}
	opts := kopts("y", "PCI")
	if b.Arch == arch.ARM64 || b.Arch == arch.ARM {
		opts = append(opts, Option{"PCI_HOST_GENERIC", "y"})
	}
	return opts
}

// featureConfig maps an mkfs feature that several types share to the
// kernel option that lets a driver mount a filesystem with it; a type's
// own ones are in its catalogue entry (Kernel.FeatureConfig).
var featureConfig = map[string]string{
	"encrypt":       "FS_ENCRYPTION",
	"verity":        "FS_VERITY",
	"casefold":      "UNICODE",
	"quota":         "QUOTA",
	"project":       "QUOTA",
	"project_quota": "QUOTA",
}

// filesystems returns the options for types, their drivers at value.
func (k *kbuilder) filesystems(n *Needs, types []string, value string) []Option {
	var opts []Option
	for _, t := range types {
		ft, ok := filesystems.Lookup(t)
		if !ok {
			continue
		}
		kn := ft.Kernel
		opts = append(opts, kopts(value, kn.Config...)...)
		opts = append(opts, kopts("y", kn.Bools...)...)
		for _, feat := range n.Features[t] {
			if c, ok := featureConfig[feat]; ok {
				opts = append(opts, Option{c, "y"})
			}
			if c, ok := kn.FeatureConfig[feat]; ok {
				opts = append(opts, Option{c, "y"})
			}
		}
		for _, c := range n.Compressors[t] {
			if opt, ok := kn.Compressors[c]; ok {
				opts = append(opts, Option{opt, "y"})
			} else if opt, ok := kn.Compressors["*"]; ok {
				opts = append(opts, Option{opt, "y"})
			}
		}
	}
	return opts
}
