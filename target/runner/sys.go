package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/bootinit"
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

// dropCaches syncs and drops the page cache, dentries and inodes.
func dropCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("dropping caches: %w", err)
	}
	return nil
}

// kmsgRecord is one record of the kernel log.
type kmsgRecord struct {
	Level int   // syslog level: 0 emerg ... 3 err, 4 warning, ... 7 debug
	Seq   int64 // the record's sequence number in the log
	Usec  int64 // timestamp, CLOCK_MONOTONIC microseconds
	Msg   string
}

// readKmsg returns the kernel log records still in the ring buffer.
func readKmsg() ([]kmsgRecord, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/kmsg: %w", err)
	}
	defer unix.Close(fd)
	return readRecords(fd)
}

// kmsgCursor reads the kernel log from the moment it is opened on, without
// reading again what the ring buffer held before (crash_states looks at
// the log of every state).
type kmsgCursor struct{ fd int }

func newKmsgCursor() (*kmsgCursor, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/kmsg: %w", err)
	}
	if _, err := unix.Seek(fd, 0, unix.SEEK_END); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("seeking /dev/kmsg: %w", err)
	}
	return &kmsgCursor{fd}, nil
}

// notes returns what the kernel said of dev since the cursor was opened.
func (c *kmsgCursor) notes(dev string) (*kernelNotes, error) {
	recs, err := readRecords(c.fd)
	if err != nil {
		return nil, err
	}
	return notesFor(recs, blockName(dev), -1), nil
}

func (c *kmsgCursor) close() { unix.Close(c.fd) }

// readRecords reads the records of an open /dev/kmsg up to its end.
func readRecords(fd int) ([]kmsgRecord, error) {
	var out []kmsgRecord
	buf := make([]byte, 8192)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EPIPE) {
			continue // overwritten records: go on with the next one
		}
		if errors.Is(err, unix.EAGAIN) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("reading /dev/kmsg: %w", err)
		}
		if r, ok := parseKmsg(buf[:n]); ok {
			out = append(out, r)
		}
	}
}

// parseKmsg parses "prio,seq,usec,flags[,...];message\n[ continuation]".
func parseKmsg(b []byte) (kmsgRecord, bool) {
	head, msg, ok := bytes.Cut(b, []byte{';'})
	if !ok {
		return kmsgRecord{}, false
	}
	f := strings.Split(string(head), ",")
	if len(f) < 3 {
		return kmsgRecord{}, false
	}
	prio, err1 := strconv.Atoi(f[0])
	seq, err2 := strconv.ParseInt(f[1], 10, 64)
	usec, err3 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return kmsgRecord{}, false
	}
	line, _, _ := bytes.Cut(msg, []byte{'\n'})
	return kmsgRecord{Level: prio & 7, Seq: seq, Usec: usec, Msg: string(line)}, true
}

// writeKmsg logs msg in the kernel log at notice level, so that it has a
// kernel timestamp and reaches the console.
func writeKmsg(msg string) error {
	f, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("<5>" + msg + "\n")
	return err
}

// mountedAt reports where dev is mounted, from /proc/self/mountinfo. A
// mount matches by device number or, for filesystems such as btrfs that
// show an anonymous device number, by its source.
func mountedAt(dev string) ([]string, error) {
	want, err := devNumber(dev)
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
				source = unescapeMount(fs[i+2])
				break
			}
		}
		if fs[2] == want || (source != "" && source == dev) {
			out = append(out, unescapeMount(fs[4]))
		}
	}
	return out, sc.Err()
}

func devNumber(dev string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		return "", fmt.Errorf("%s: %w", dev, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("%s is not a block device", dev)
	}
	return fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)), nil
}

func unescapeMount(s string) string {
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

func flagsOf(names []string) (uintptr, error) {
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

// mount mounts dev on dir. An empty fstype probes the kernel's types in
// turn, as mount(8) does without -t.
func mount(dev, dir, fstype string, flags uintptr, data string) (string, error) {
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

// unmount unmounts dir. A filesystem that is busy for a moment (a
// process of a finished test still closing its files, a writeback in
// flight) gets a few more tries.
func unmount(dir string) error {
	stopCleaner(dir)
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

// blockName is the name of dev under /sys/class/block.
func blockName(dev string) string { return filepath.Base(dev) }

// writtenSectors is the device's count of sectors written so far.
func writtenSectors(dev string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join("/sys/class/block", blockName(dev), "stat"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 7 {
		return 0, fmt.Errorf("%s: short block stat", dev)
	}
	return strconv.ParseUint(f[6], 10, 64)
}

// settle waits until dev has written nothing for quiet (ext4lazyinit,
// btrfs and f2fs background work, a journal commit), at most limit. It
// returns how long it waited.
func settle(dev string, quiet, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	last, err := writtenSectors(dev)
	if err != nil {
		return 0, err
	}
	stable := time.Now()
	for time.Since(start) < limit {
		time.Sleep(250 * time.Millisecond)
		n, err := writtenSectors(dev)
		if err != nil {
			return time.Since(start), err
		}
		if n != last {
			last, stable = n, time.Now()
			continue
		}
		if time.Since(stable) >= quiet {
			return time.Since(start), nil
		}
	}
	return time.Since(start), fmt.Errorf("%s still writing after %s", dev, limit)
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
