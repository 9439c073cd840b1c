package spec

import (
	"regexp"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/wire/arch"
)

// LAVA is a board's `lava` block: how a LAVA lab knows the board, for the
// jobs `fsbench lava` writes.
type LAVA struct {
	// DeviceType is the lab's device type: "qemu" for its virtual
	// devices, which boot the image in QEMU; any other boots a real board
	// through U-Boot from the image's own boot files.
	DeviceType string
	// Tags pick the devices of the type the jobs may run on (the lab's
	// device tags, such as the storage part a board carries).
	Tags []string
	Ranges
}

// LAVAQEMU is the device type of LAVA's QEMU devices.
const LAVAQEMU = "qemu"

var lavaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "device_type", Required: true}, {Name: "tags"}},
}

// lavaNamePattern is what a LAVA lab accepts as a device type or tag
// name (a Django slug, with dots), which also keeps the value one YAML
// scalar in the job.
var lavaNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// LAVAName reports whether s can be a LAVA device type or tag.
func LAVAName(s string) bool { return len(s) <= maxNameLen && lavaNamePattern.MatchString(s) }

// qemuStorage is how a LAVA QEMU device attaches the disk for each name
// the board's kernel gives it.
var qemuStorage = map[string]bool{"vda": true, "nvme0n1": true, "mmcblk0": true}

func (d *decoder) lava(b *hcl.Block) *LAVA {
	c := d.content(b.Body, lavaSchema)
	l := &LAVA{Ranges: newRanges(b.DefRange, c.Attributes)}
	l.DeviceType = d.str(c.Attributes, "device_type", "Invalid LAVA device type")
	if _, ok := c.Attributes["device_type"]; ok && (!lavaNamePattern.MatchString(l.DeviceType) || len(l.DeviceType) > maxNameLen) {
		d.errorf(l.Of("device_type"), "Invalid LAVA device type",
			"device_type is the lab's name for the kind of device, such as qemu or beaglebone-black: up to %d letters, digits, '_', '.' and '-'.", maxNameLen)
	}
	l.Tags = d.strings(c.Attributes, "tags", "Invalid LAVA tags")
	for i, t := range l.Tags {
		if !lavaNamePattern.MatchString(t) || len(t) > maxNameLen {
			d.errorf(l.OfElem("tags", i), "Invalid LAVA tag",
				"tags element %d (%q) is not a LAVA tag name: up to %d letters, digits, '_', '.' and '-'.", i+1, t, maxNameLen)
		}
	}
	return l
}

// checkLAVA checks that the board can run on its LAVA device type: a
// QEMU device emulates the x86_64, aarch64 and arm machines fsbench
// boots, with the disk on an interface the board's storage name says; a
// real board boots the image alone, so it needs the boot files U-Boot
// reads.
func (d *decoder) checkLAVA(bd *Board) {
	l := bd.LAVA
	if l == nil || l.DeviceType == "" {
		return
	}
	rng := l.Of("device_type")
	if l.DeviceType == LAVAQEMU {
		if bd.Arch != arch.X86_64 && bd.Arch != arch.ARM64 && bd.Arch != arch.ARM {
			d.errorf(rng, "Board cannot run on this LAVA device type",
				"A LAVA qemu device runs the image in the QEMU machine fsbench emulates for x86_64, aarch64 and arm; board %q is %s.", bd.Name, bd.Arch)
		}
		if !qemuStorage[bd.Storage] {
			d.errorf(rng, "Board cannot run on this LAVA device type",
				"A LAVA qemu device attaches the disk as virtio (storage = \"vda\"), NVMe (\"nvme0n1\") or an SD card (\"mmcblk0\"); board %q names its storage %q, which the image's root= and tests would not find.", bd.Name, bd.Storage)
		}
		return
	}
	if bd.Boot == nil {
		d.errorf(rng, "Board cannot run on this LAVA device type",
			"On a device type other than qemu, LAVA writes the image to the board and U-Boot boots it from the image's own kernel and extlinux.conf or boot.scr: give board %q a boot block (and bootloader = \"extlinux\" or \"uboot\").", bd.Name)
	}
}
