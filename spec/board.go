package spec

import (
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/wire/arch"
)

var boardSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "arch"}, {Name: "console"}, {Name: "storage"}, {Name: "init"},
		{Name: "root_by"}, {Name: "bootloader"}, {Name: "kernel_args"}, {Name: "root_wait"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "boot"}, {Type: "lava"}, {Type: "endurance"}},
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

func (d *decoder) board(b *hcl.Block, paths *resolver) *Board {
	c := d.content(b.Body, boardSchema)
	bd := &Board{Name: b.Labels[0], Ranges: newRanges(b.DefRange, c.Attributes)}
	if !partNameRegex.MatchString(bd.Name) || len(bd.Name) > maxNameLen {
		d.errorf(b.LabelRanges[0], "Invalid board name",
			"A board name starts with a letter or digit and holds up to %d letters, digits, '_', '.' and '-': it is written into the kernel configuration and the build settings.", maxNameLen)
	}
	bd.Arch = arch.Arch(d.enum(c.Attributes, "arch", string(arch.X86_64), "Unsupported architecture", arch.Names()...))
	bd.Console = d.str(c.Attributes, "console", "Invalid console")
	if bd.Console == "" {
		bd.Console = defaultConsole[bd.Arch]
	}
	if err := cmdline.Word(bd.Console); err != nil {
		d.errorf(bd.Of("console"), "Invalid console", "console is one kernel argument, such as ttyS0,115200n8 (put other arguments in kernel_args), and %q cannot be one: %v.", bd.Console, err)
	} else if !consolePattern.MatchString(bd.Console) && !strings.HasPrefix(bd.Console, "/dev/") {
		d.errorf(bd.Of("console"), "Invalid console",
			"console names the kernel's port and its options, such as ttyS0,115200n8 or ttyAMA0: letters, digits and '_', then comma-separated options of letters, digits, '.' and '_'. It also names the getty's port in the userland's inittab.")
	}
	if strings.HasPrefix(bd.Console, "/dev/") {
		d.errorf(bd.Of("console"), "Invalid console", "console takes the kernel's name for the port, as in console=ttyS0,115200n8, without /dev/.")
	}
	bd.Storage = d.str(c.Attributes, "storage", "Invalid storage device")
	if bd.Storage == "" {
		bd.Storage = "vda"
	}
	if !storagePattern.MatchString(bd.Storage) {
		d.errorf(bd.Of("storage"), "Invalid storage device", "storage takes the kernel's name for the whole flash device (mmcblk0, vda, nvme0n1, sda), without /dev/.")
	}
	bd.Init = d.enum(c.Attributes, "init", "busybox", "Unsupported init system", "busybox", "sysvinit", "systemd")
	bd.RootBy = d.enum(c.Attributes, "root_by", "partuuid", "Invalid root_by", "partuuid", "partlabel", "device")
	bd.Bootloader = d.enum(c.Attributes, "bootloader", "none", "Unsupported bootloader", "none", "extlinux", "uboot", "rpi")
	if bd.Bootloader == "rpi" && bd.Arch != arch.ARM64 && bd.Arch != arch.ARM {
		d.errorf(bd.Of("bootloader"), "Unsupported bootloader", "The Raspberry Pi firmware boots arm64 and arm kernels; the board is %s.", bd.Arch)
	}
	bd.KernelArgs = d.strings(c.Attributes, "kernel_args", "Invalid kernel arguments")
	for i, a := range bd.KernelArgs {
		if err := cmdline.Word(a); err != nil {
			d.errorf(bd.OfElem("kernel_args", i), "Invalid kernel arguments",
				"kernel_args element %d (%q) cannot be one kernel argument: %v. Give each argument as its own element.", i+1, a, err)
		}
	}
	if x, ok := d.field(c.Attributes, rootWaitField, "Invalid root_wait"); ok {
		bd.RootWait, _ = time.ParseDuration(x.(string))
	}
	for _, blk := range c.Blocks {
		switch {
		case blk.Type == "lava" && bd.LAVA != nil:
			d.errorf(blk.DefRange, "Duplicate lava block", "Board %q already has a lava block.", bd.Name)
		case blk.Type == "lava":
			bd.LAVA = d.lava(blk)
		case blk.Type == "endurance" && bd.Endurance != nil:
			d.errorf(blk.DefRange, "Duplicate endurance block", "Board %q already has an endurance block.", bd.Name)
		case blk.Type == "endurance":
			bd.Endurance = d.endurance(blk, bd)
		case bd.Boot != nil:
			d.errorf(blk.DefRange, "Duplicate boot block", "Board %q already has a boot block.", bd.Name)
		default:
			bd.Boot = d.bootFiles(blk, bd, paths)
		}
	}
	d.checkLAVA(bd)
	return bd
}

// rootWaitField is how long a run lets a boot wait for its root device.
var rootWaitField = fields.Field{Name: "root_wait", Kind: fields.Duration, Min: fields.Bound(1), Max: fields.Bound(3600),
	Doc: "how long a run lets a boot wait for its root device (the kernel's \"Waiting for root device\") before it reports the boot failed"}

// consolePattern is the value of console=: a port (ttyS0, ttyAMA0,
// ttymxc0, hvc0, uart8250) and its comma-separated options (115200n8,
// mmio32,0x1c28000).
var consolePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(,[A-Za-z0-9_.]+)*$`)

// storagePattern is a kernel's name for a whole disk: mmcblk0, vda,
// nvme0n1, sda, ubiblock0_0.
var storagePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
