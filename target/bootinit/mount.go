package bootinit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/wire/bootabi"
	"golang.org/x/sys/unix"
)

// mountEarly mounts the kernel filesystems the initramfs needs. devtmpfs
// may already be mounted (CONFIG_DEVTMPFS_MOUNT does not apply to an
// initramfs, but a kernel may differ), hence EBUSY is fine.
func mountEarly() error {
	for _, m := range []struct{ src, dir, typ string }{
		{"devtmpfs", "/dev", "devtmpfs"},
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
	} {
		if err := os.MkdirAll(m.dir, 0o755); err != nil {
			return err
		}
		err := unix.Mount(m.src, m.dir, m.typ, unix.MS_NOSUID|unix.MS_NOEXEC, "")
		if err != nil && !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("mounting %s on %s: %w", m.typ, m.dir, err)
		}
	}
	return nil
}

// mountRoot mounts dev on target as the first of c.FSTypes that works, or,
// without rootfstype=, as the type its superblock says, then every block
// filesystem the kernel knows, like the kernel's own root mount.
func mountRoot(dev, target string, c Cmdline) (string, error) {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return "", err
	}
	known, err := KernelFilesystems("/proc/filesystems")
	if err != nil {
		return "", err
	}
	types := c.FSTypes
	if len(types) == 0 {
		if typ := detectType(dev); typ != "" {
			types = append(types, typ)
		}
		for _, t := range known {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	var flags uintptr
	if c.ReadOnly {
		flags |= unix.MS_RDONLY
	}
	if len(types) > 1 {
		flags |= unix.MS_SILENT // failed guesses would fill the log
	}
	var tried []string
	for _, t := range types {
		err := unix.Mount(dev, target, t, flags, c.Flags)
		if err == nil {
			return t, nil
		}
		why := err.Error()
		if !slices.Contains(known, t) {
			has := "which lists no block filesystem at all"
			if len(known) > 0 {
				has = "which has " + strings.Join(known, " ")
			}
			why = fmt.Sprintf("not in /proc/filesystems (%s); is its module in %s?", has, bootabi.ModuleList)
		}
		tried = append(tried, t+": "+why)
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("mounting %s: no rootfstype= and the kernel knows no block filesystem (is the filesystem's module in %s?)", dev, bootabi.ModuleList)
	}
	how := "rw"
	if c.ReadOnly {
		how = "ro"
	}
	if c.Flags != "" {
		how += ", rootflags=" + c.Flags
	}
	return "", fmt.Errorf("mounting %s on %s (%s) failed: %s", dev, target, how, strings.Join(tried, "; "))
}

func detectType(dev string) string {
	f, err := os.Open(dev)
	if err != nil {
		return ""
	}
	defer f.Close()
	typ, _, _ := FilesystemUUID(f)
	return typ
}

// KernelFilesystems lists the block filesystems in /proc/filesystems
// (those not marked nodev), in the kernel's order.
func KernelFilesystems(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 1 {
			out = append(out, fields[0])
		}
	}
	return out, sc.Err()
}
