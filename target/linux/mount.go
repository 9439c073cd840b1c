package linux

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/bootinit"
)

// MountedAt reports where dev is mounted, from /proc/self/mountinfo. A
// mount matches by device number or, for filesystems such as btrfs that
// show an anonymous device number, by its source.
func MountedAt(dev string) ([]string, error) {
	want, err := DevNumber(dev)
	if err != nil {
		return nil, err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 5 {
			continue
		}
		source := ""
		for i, f := range fs {
			if f == "-" && i+2 < len(fs) {
				source = UnescapeMount(fs[i+2])
				break
			}
		}
		if fs[2] == want || (source != "" && source == dev) {
			out = append(out, UnescapeMount(fs[4]))
		}
	}
	return out, sc.Err()
}

// DevNumber is the block device dev's number as "major:minor".
func DevNumber(dev string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		return "", fmt.Errorf("%s: %w", dev, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("%s is not a block device", dev)
	}
	return fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)), nil
}

// UnescapeMount undoes the octal escapes of a /proc/self/mountinfo field.
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountFlags maps the VFS flag names a plan carries to mount(2) flags.
var mountFlags = map[string]uintptr{
	"ro": unix.MS_RDONLY, "rw": 0,
	"noatime": unix.MS_NOATIME, "atime": 0, "nodiratime": unix.MS_NODIRATIME,
	"relatime": unix.MS_RELATIME, "strictatime": unix.MS_STRICTATIME,
	"lazytime": unix.MS_LAZYTIME, "sync": unix.MS_SYNCHRONOUS, "async": 0,
	"dirsync": unix.MS_DIRSYNC, "nodev": unix.MS_NODEV, "dev": 0,
	"noexec": unix.MS_NOEXEC, "exec": 0, "nosuid": unix.MS_NOSUID, "suid": 0,
	"defaults": 0,
}

// FlagsOf returns the mount(2) flags of the VFS flag names a plan carries.
func FlagsOf(names []string) (uintptr, error) {
	var fl uintptr
	for _, n := range names {
		v, ok := mountFlags[n]
		if !ok {
			return 0, fmt.Errorf("unknown mount flag %q", n)
		}
		fl |= v
	}
	return fl, nil
}

// Mount mounts dev on dir. An empty fstype probes the kernel's types in
// turn, as mount(8) does without -t.
func Mount(dev, dir, fstype string, flags uintptr, data string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if fstype != "" {
		if err := unix.Mount(dev, dir, fstype, flags, data); err != nil {
			return "", fmt.Errorf("mount -t %s %s %s: %w", fstype, dev, dir, err)
		}
		return fstype, nil
	}
	types, err := bootinit.KernelFilesystems("/proc/filesystems")
	if err != nil {
		return "", err
	}
	for _, t := range types {
		if err := unix.Mount(dev, dir, t, flags, data); err == nil {
			return t, nil
		}
	}
	return "", fmt.Errorf("mount %s %s: no filesystem type of /proc/filesystems accepts it", dev, dir)
}

// Unmount unmounts dir. A filesystem that is busy for a moment (a
// process of a finished test still closing its files, a writeback in
// flight) gets a few more tries.
func Unmount(dir string) error {
	StopCleaner(dir)
	var err error
	for try := 0; try < 20; try++ {
		if err = unix.Unmount(dir, 0); !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("umount %s: %w", dir, err)
	}
	return nil
}

// UnmountWithin unmounts dir, giving up after limit: a filesystem on a
// failing device may hang in umount (the seed saw nilfs2 do it).
func UnmountWithin(dir string, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- Unmount(dir) }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		return fmt.Errorf("umount %s still hangs after %s", dir, limit)
	}
}
