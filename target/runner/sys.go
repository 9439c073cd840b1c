package runner

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// monoNS is CLOCK_MONOTONIC in nanoseconds, the clock results carry.
func monoNS() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// cmdlineOptions returns the fsbench.* options of the kernel command line:
// fsbench.finally=poweroff tells the runner what to do once the plan is
// done (QEMU runs ask for it).
func cmdlineOptions() map[string]string {
	b, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, f := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(f, "=")
		if name, ok := strings.CutPrefix(k, "fsbench."); ok {
			out[name] = v
		}
	}
	return out
}

// shutdown asks init to reboot or power off (so services stop and
// filesystems unmount cleanly) and, should init not act, does it itself.
func shutdown(cmd string) error {
	unix.Sync()
	if path, err := exec.LookPath(cmd); err == nil {
		c := exec.Command(path)
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Run(); err == nil {
			time.Sleep(60 * time.Second)
		}
	}
	unix.Sync()
	how := unix.LINUX_REBOOT_CMD_RESTART
	if cmd == "poweroff" {
		how = unix.LINUX_REBOOT_CMD_POWER_OFF
	}
	return unix.Reboot(how)
}
