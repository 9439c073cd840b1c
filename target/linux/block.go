package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DropCaches syncs and drops the page cache, dentries and inodes.
func DropCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("dropping caches: %w", err)
	}
	return nil
}

// BlockName is the name of dev under /sys/class/block.
func BlockName(dev string) string { return filepath.Base(dev) }

// WrittenSectors is the device's count of sectors written so far.
func WrittenSectors(dev string) (uint64, error) {
	b, err := os.ReadFile(filepath.Join("/sys/class/block", BlockName(dev), "stat"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 7 {
		return 0, fmt.Errorf("%s: short block stat", dev)
	}
	return strconv.ParseUint(f[6], 10, 64)
}

// Settle waits until dev has written nothing for quiet (ext4lazyinit,
// btrfs and f2fs background work, a journal commit), at most limit. It
// returns how long it waited.
func Settle(dev string, quiet, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	last, err := WrittenSectors(dev)
	if err != nil {
		return 0, err
	}
	stable := time.Now()
	for time.Since(start) < limit {
		time.Sleep(250 * time.Millisecond)
		n, err := WrittenSectors(dev)
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

// BlockSectors is the size of a block device in 512-byte sectors.
func BlockSectors(dev string) (uint64, error) {
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	var size uint64
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&size))); errno != 0 {
		return 0, fmt.Errorf("size of %s: %w", dev, errno)
	}
	return size / 512, nil
}
