// Command guestinit is the /sbin/init of the root filesystems that the
// qemu package's tests boot. It reports what it finds, does what the
// kernel command line asks (fsbench.test=...), and powers the VM off, so
// that a boot test ends as soon as the guest has shown what it had to.
//
//	fsbench.test=poweroff   (default) print the marker and power off
//	fsbench.test=echo       print FSBENCH-GUEST-READY, read a line from
//	                        the console and print it back, then as poweroff
//	fsbench.test=reboot     reboot once (counted in /reboots on the rw
//	                        root), then as poweroff
//	fsbench.test=populate:DEV:FSTYPE
//	                        mount DEV as FSTYPE and copy this program to
//	                        its /sbin/init with the directories bootinit
//	                        needs, for filesystems no host tool can fill
//	                        (nilfs2), then as poweroff
//
// The marker line is "FSBENCH-GUEST-OK pid=<pid> root=<fstype> <options>
// on <source>".
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
)

func main() {
	err := run()
	if err != nil {
		say("FSBENCH-GUEST-ERROR %v", err)
	}
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {} // PID 1 must not exit
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stdout, format+"\r\n", args...)
}

func run() error {
	cmdline, err := os.ReadFile("/proc/cmdline")
	if err != nil {
		return fmt.Errorf("/proc is not mounted in the new root: %w", err)
	}
	test := "poweroff"
	for _, f := range strings.Fields(string(cmdline)) {
		if v, ok := strings.CutPrefix(f, "fsbench.test="); ok {
			test = v
		}
	}
	root, err := rootMount()
	if err != nil {
		return err
	}
	switch {
	case test == "reboot":
		n := 0
		if b, err := os.ReadFile("/reboots"); err == nil {
			fmt.Sscan(string(b), &n)
		}
		if n == 0 {
			if err := os.WriteFile("/reboots", []byte("1\n"), 0o644); err != nil {
				return err
			}
			syscall.Sync()
			say("FSBENCH-GUEST-REBOOTING")
			return syscall.Reboot(syscall.LINUX_REBOOT_CMD_RESTART)
		}
	case test == "echo":
		say("FSBENCH-GUEST-READY")
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading the console: %w", err)
		}
		say("FSBENCH-GUEST-ECHO %s", strings.TrimSpace(line))
	case strings.HasPrefix(test, "populate:"):
		parts := strings.Split(test, ":")
		if len(parts) != 3 {
			return fmt.Errorf("fsbench.test=%s: want populate:DEV:FSTYPE", test)
		}
		if err := populate(parts[1], parts[2]); err != nil {
			return err
		}
	}
	say("FSBENCH-GUEST-OK pid=%d root=%s", os.Getpid(), root)
	return nil
}

// rootMount describes "/" from /proc/self/mounts: type, options, source.
func rootMount() (string, error) {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return "", err
	}
	var found string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[1] == "/" {
			found = fmt.Sprintf("%s %s on %s", f[2], f[3], f[0]) // the last "/" is the visible one
		}
	}
	if found == "" {
		return "", fmt.Errorf("no / in /proc/self/mounts:\n%s", b)
	}
	return found, nil
}

func populate(dev, fstype string) error {
	if err := syscall.Mount(dev, "/mnt", fstype, 0, ""); err != nil {
		return fmt.Errorf("mounting %s as %s: %w", dev, fstype, err)
	}
	for _, d := range []string{"sbin", "dev", "proc", "sys", "mnt"} {
		if err := os.MkdirAll("/mnt/"+d, 0o755); err != nil {
			return err
		}
	}
	self, err := os.ReadFile("/sbin/init")
	if err != nil {
		return err
	}
	if err := os.WriteFile("/mnt/sbin/init", self, 0o755); err != nil {
		return err
	}
	syscall.Sync()
	if err := syscall.Unmount("/mnt", 0); err != nil {
		return err
	}
	say("FSBENCH-GUEST-POPULATED %s (%s)", dev, fstype)
	return nil
}
