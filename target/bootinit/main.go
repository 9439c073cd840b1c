package bootinit

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fsbench/fsbench/wire/bootabi"
	"golang.org/x/sys/unix"
)

// Main is the initramfs init. On success it does not return: the root
// filesystem's init replaces it. On failure it prints why and powers the
// machine off, so it returns only if even that failed; the caller should
// then exit with the returned code (and the kernel panics). Main refuses
// to do anything, and returns 2, unless it runs as PID 1 on the kernel's
// rootfs.
func Main() int {
	if err := checkInitramfs(); err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", msgPrefix, err)
		return 2
	}
	l := newLogger()
	err := bootRecovered(l)
	l.printf(levelErr, "error: %v", err)
	powerOff(l)
	return 1
}

// bootRecovered turns a panic into an error: an init that dies makes the
// kernel panic, which hangs the machine unless panic= is set, and reboots
// it into the same failure if it is.
func bootRecovered(l *logger) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bootinit panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return boot(l)
}

// checkInitramfs is the guard that keeps Main from mounting, deleting and
// powering off anything on a running system.
func checkInitramfs() error {
	if pid := os.Getpid(); pid != 1 {
		return fmt.Errorf("not started by the kernel as PID 1 (pid %d): this is the initramfs init and does nothing elsewhere", pid)
	}
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil {
		return err
	}
	// Type is int32 on 32-bit platforms, where RAMFS_MAGIC does not fit.
	if magic := uint32(st.Type); magic != unix.RAMFS_MAGIC && magic != unix.TMPFS_MAGIC {
		return fmt.Errorf("/ is not the kernel's rootfs (filesystem magic %#x): refusing to run outside an initramfs", magic)
	}
	return nil
}

// boot runs the steps of the package comment; it returns only on failure.
func boot(l *logger) error {
	if err := mountEarly(); err != nil {
		return err
	}
	l.readConsoleLevel("/proc/sys/kernel/printk")

	raw, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return err
	}
	c, err := ParseCmdline(string(raw))
	if err != nil {
		return fmt.Errorf("kernel command line: %w", err)
	}
	helper := helperOptions(string(raw))
	if c.Root.Kind == RootNone && helper == nil {
		return errors.New("no root= on the kernel command line (want root=/dev/NAME, PARTUUID=, PARTLABEL= or UUID=)")
	}

	start := time.Now()
	n, skipped, err := loadModules(bootabi.ModuleList)
	if err != nil {
		return err
	}
	l.printf(levelInfo, "loaded %d modules in %v", n, time.Since(start).Round(time.Millisecond))
	if len(skipped) > 0 {
		l.printf(levelWarn, "modules with no device to drive, skipped: %s", strings.Join(skipped, " "))
	}

	if helper != nil {
		return runHelper(l, helper)
	}
	if c.Delay > 0 {
		l.printf(levelNotice, "rootdelay: waiting %v before looking for root device %s", c.Delay, c.Root)
		time.Sleep(c.Delay)
	}
	say := func(s string) { l.printf(levelNotice, "%s", s) }
	dev, err := finder{sys: "/sys", dev: "/dev"}.wait(c.Root, c.Wait, say)
	if err != nil {
		return err
	}
	fstype, err := mountRoot(dev, bootabi.NewRoot, c)
	if err != nil {
		return err
	}
	// The host's boot-time capture matches "Mounted root", as in the
	// kernel's own "VFS: Mounted root (ext4 filesystem) readonly on ...".
	l.printf(levelNotice, "Mounted root (%s filesystem) on %s", fstype, dev)

	warn := func(format string, args ...any) { l.printf(levelWarn, format, args...) }
	if err := switchRoot(bootabi.NewRoot, c.Init, warn); err != nil {
		return fmt.Errorf("switching to the root filesystem %s (%s on %s): %w", bootabi.NewRoot, fstype, dev, err)
	}
	return nil // not reached: switchRoot execs or fails
}

// powerOff ends the VM: QEMU exits when the guest powers off, so a failed
// boot is over as soon as it is reported.
func powerOff(l *logger) {
	l.printf(levelErr, "powering off")
	unix.Sync()
	err := unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	l.printf(levelErr, "power off failed: %v", err)
}
