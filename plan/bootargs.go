package plan

import (
	"fmt"
	"unicode"
)

// bootargs builds the kernel command line that mounts the root partition
// directly: root= by the board's chosen scheme, rootfstype= so the kernel
// does not probe every filesystem (the ELC2015 boot-time method), rootflags=
// with the filesystem's own mount options, rootwait because flash devices
// appear late, and the console.
func bootargs(b Board, root *Partition) []string {
	var args []string
	if root != nil {
		args = append(args, "root="+rootDevice(b, root))
		if fs := root.Filesystem; fs != nil {
			args = append(args, "rootfstype="+fs.Type)
			if fs.RootFlags != "" {
				args = append(args, "rootflags="+fs.RootFlags)
			}
			if fs.ReadOnly {
				args = append(args, "ro")
			} else {
				args = append(args, "rw")
			}
		}
		args = append(args, "rootwait")
	}
	if b.Console != "" {
		args = append(args, "console="+b.Console)
	}
	return append(args, b.KernelArgs...)
}

func rootDevice(b Board, p *Partition) string {
	switch b.RootBy {
	case "partlabel":
		return "PARTLABEL=" + p.Label
	case "device":
		return "/dev/" + deviceName(b.Storage, p.Number)
	}
	return "PARTUUID=" + p.UUID
}

// deviceName follows the kernel's naming: a disk whose name ends in a
// digit (mmcblk0, nvme0n1) separates the partition number with "p".
func deviceName(disk string, n int) string {
	if disk != "" && unicode.IsDigit(rune(disk[len(disk)-1])) {
		return fmt.Sprintf("%sp%d", disk, n)
	}
	return fmt.Sprintf("%s%d", disk, n)
}
