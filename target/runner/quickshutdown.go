package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fsbench/fsbench/target/linux"
	"golang.org/x/sys/unix"
)

// quickShutdown reboots or powers off without going through init, for
// the busybox userland fsbench assembles: it runs nothing that needs
// stopping, and busybox init would spend two fixed seconds in its kill
// phase on every reboot of a boot_time loop. Every block-backed
// filesystem is remounted read-only first, so that the next boot finds it
// clean and replays no journal; when one cannot be, quickShutdown returns
// the error and the caller lets init do the shutdown.
func quickShutdown(cmd string) error {
	unix.Sync()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	mounts, err := blockMounts(f)
	f.Close()
	if err != nil {
		return err
	}
	if err := remountReadOnly(mounts); err != nil {
		return err
	}
	unix.Sync()
	how := unix.LINUX_REBOOT_CMD_RESTART
	if cmd == "poweroff" {
		how = unix.LINUX_REBOOT_CMD_POWER_OFF
	}
	return unix.Reboot(how)
}

// blockMounts lists the mount points of /proc/self/mountinfo whose
// filesystem lives on a block device (major number not 0: not proc,
// sysfs, tmpfs or devtmpfs), the last mounted first.
func blockMounts(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 5 {
			continue
		}
		major, _, ok := strings.Cut(fs[2], ":")
		if !ok || major == "0" {
			continue
		}
		out = append(out, linux.UnescapeMount(fs[4]))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// remountReadOnly remounts each mount point read-only, in order. The
// filesystem writes out what it holds and marks itself clean (ext4 and
// xfs write their journal's end, btrfs commits, f2fs checkpoints).
func remountReadOnly(mounts []string) error {
	for _, m := range mounts {
		if err := unix.Mount("", m, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("remounting %s read-only: %w", m, err)
		}
	}
	return nil
}
