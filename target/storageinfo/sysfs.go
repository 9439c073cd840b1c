package storageinfo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sysDisk is a whole block device's directory in sysfs.
type sysDisk struct {
	root string // the sysfs root, /sys on a board
	name string // the whole device: mmcblk0 for mmcblk0p3
}

// findDisk finds the whole device a block device name belongs to: itself,
// or, for a partition, the disk whose directory holds it
// (/sys/block/mmcblk0/mmcblk0p3).
func findDisk(root, name string) (sysDisk, error) {
	if name == "" || strings.ContainsAny(name, "/") {
		return sysDisk{}, fmt.Errorf("%q is not a block device name", name)
	}
	if _, err := os.Stat(filepath.Join(root, "block", name)); err == nil {
		return sysDisk{root: root, name: name}, nil
	}
	parts, _ := filepath.Glob(filepath.Join(root, "block", "*", name, "partition"))
	if len(parts) == 1 {
		return sysDisk{root: root, name: filepath.Base(filepath.Dir(filepath.Dir(parts[0])))}, nil
	}
	return sysDisk{}, fmt.Errorf("no block device %s in %s", name, filepath.Join(root, "block"))
}

// path is a file of the disk's sysfs directory.
func (d sysDisk) path(rel string) string { return filepath.Join(d.root, "block", d.name, rel) }

// read is an attribute's text, or the reason it cannot be had.
func (d sysDisk) read(rel string) (string, string) {
	b, err := os.ReadFile(d.path(rel))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Sprintf("no %s in sysfs", rel)
	case errors.Is(err, os.ErrPermission):
		return "", fmt.Sprintf("no permission to read sysfs %s", rel)
	case err != nil:
		return "", fmt.Sprintf("sysfs %s: %v", rel, err)
	}
	return strings.TrimSpace(string(b)), ""
}

// text is an attribute as a text fact.
func (d sysDisk) text(rel string) Fact {
	v, why := d.read(rel)
	if why != "" {
		return missing("%s", why)
	}
	if v == "" {
		return missing("sysfs %s is empty", rel)
	}
	return text(v, "sysfs "+rel)
}

// number is an attribute holding a decimal or 0x-prefixed number, in unit.
// The kernel prints some unset values as a negative errno in an unsigned
// format (enhanced_area_offset is 18446744073709551594, -EINVAL, when no
// enhanced area is configured): those are not values.
func (d sysDisk) number(rel, unit string) Fact {
	v, why := d.read(rel)
	if why != "" {
		return missing("%s", why)
	}
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return missing("sysfs %s is %q, not a number", rel, v)
	}
	if n >= 1<<63 {
		return missing("sysfs %s is %d, a negative errno printed unsigned: the kernel has no value", rel, n)
	}
	return num(float64(n), unit, "sysfs "+rel)
}

// register is an attribute holding a register as hex digits.
func (d sysDisk) register(rel string, size int) ([]byte, string) {
	v, why := d.read(rel)
	if why != "" {
		return nil, why
	}
	b, err := parseHexRegister(v, size)
	if err != nil {
		return nil, fmt.Sprintf("sysfs %s: %v", rel, err)
	}
	return b, ""
}
