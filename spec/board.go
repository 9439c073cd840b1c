package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/wire/arch"
)

var boardSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "arch"}, {Name: "console"}, {Name: "storage"}, {Name: "init"},
		{Name: "root_by"}, {Name: "bootloader"}, {Name: "kernel_args"},
	},
}

// defaultConsole is the first serial port's name on each architecture's
// usual board or QEMU machine.
var defaultConsole = map[arch.Arch]string{
	arch.X86_64:  "ttyS0,115200n8",
	arch.ARM:     "ttyAMA0,115200n8",
	arch.ARM64:   "ttyAMA0,115200n8",
	arch.RISCV64: "ttyS0,115200n8",
}

// DefaultBoard is the target when a spec names none: a QEMU x86_64
// machine with a virtio disk, the virtual target fsbench runs on.
func DefaultBoard() *Board {
	return &Board{
		Name: "qemu-x86_64", Arch: arch.X86_64, Console: defaultConsole[arch.X86_64],
		Storage: "vda", Init: "busybox", RootBy: "partuuid", Bootloader: "none",
		Ranges: Ranges{Attrs: map[string]hcl.Range{}},
	}
}

func (d *decoder) board(b *hcl.Block) *Board {
	c := d.content(b.Body, boardSchema)
	bd := &Board{Name: b.Labels[0], Ranges: newRanges(b.DefRange, c.Attributes)}
	bd.Arch = arch.Arch(d.enum(c.Attributes, "arch", string(arch.X86_64), "Unsupported architecture", arch.Names()...))
	bd.Console = d.str(c.Attributes, "console", "Invalid console")
	if bd.Console == "" {
		bd.Console = defaultConsole[bd.Arch]
	}
	if strings.ContainsAny(bd.Console, " \t\n") {
		d.errorf(bd.Of("console"), "Invalid console", "console is one kernel argument, such as ttyS0,115200n8; put other arguments in kernel_args.")
	}
	if strings.HasPrefix(bd.Console, "/dev/") {
		d.errorf(bd.Of("console"), "Invalid console", "console takes the kernel's name for the port, as in console=ttyS0,115200n8, without /dev/.")
	}
	bd.Storage = d.str(c.Attributes, "storage", "Invalid storage device")
	if bd.Storage == "" {
		bd.Storage = "vda"
	}
	if strings.ContainsAny(bd.Storage, "/ \t\n") {
		d.errorf(bd.Of("storage"), "Invalid storage device", "storage takes the kernel's name for the whole flash device (mmcblk0, vda, nvme0n1, sda), without /dev/.")
	}
	bd.Init = d.enum(c.Attributes, "init", "busybox", "Unsupported init system", "busybox", "sysvinit", "systemd")
	bd.RootBy = d.enum(c.Attributes, "root_by", "partuuid", "Invalid root_by", "partuuid", "partlabel", "device")
	bd.Bootloader = d.enum(c.Attributes, "bootloader", "none", "Unsupported bootloader", "none", "extlinux", "uboot", "rpi")
	bd.KernelArgs = d.strings(c.Attributes, "kernel_args", "Invalid kernel arguments")
	for i, a := range bd.KernelArgs {
		if strings.ContainsAny(a, " \t\n") {
			d.errorf(bd.Of("kernel_args"), "Invalid kernel arguments", "kernel_args element %d (%q) holds whitespace; give each argument as its own element.", i, a)
		}
	}
	return bd
}
