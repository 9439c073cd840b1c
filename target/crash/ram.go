package crash

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// crash_states can replay its log into memory instead of onto the
// partition: a tmpfs holds the partition's image and the snapshot store as
// sparse files, each behind a loop device, and every state is mounted and
// checked there. The states are the same bytes; what changes is that a
// state's reads and the snapshot's copies cost a memory copy instead of a
// request to the flash (or, in QEMU, to the emulated disk), and that
// checking thousands of states writes nothing to the board's flash. Only
// the pages the log writes take memory.

// crashRAMDir is where the tmpfs is mounted, beside the device nodes.
const crashRAMDir = crashNodeDir + "/ram"

// ramImage is one worker's replay in memory: the image file, written by
// the replay, and the loop devices over it and over the snapshot store.
type ramImage struct {
	file      *os.File
	part, cow *os.File // the loop devices, open while the worker works
}

// ramNeed is the memory a replay in RAM may take: every byte the log
// writes (an upper bound: overwrites reuse pages) and the snapshot store.
func ramNeed(logBytes, cowBytes int64) int64 { return logBytes + cowBytes }

// chooseRAM decides where the replay goes for replay_on: "ram", "device",
// or "auto", which takes RAM when it needs at most half the memory
// available. It returns the reason for the choice.
func chooseRAM(on string, need int64) (bool, string) {
	avail, err := memAvailable("/proc/meminfo")
	switch {
	case on == "device":
		return false, "replay_on = \"device\""
	case on == "ram":
		return true, "replay_on = \"ram\""
	case err != nil:
		return false, fmt.Sprintf("the memory available is unknown (%v)", err)
	case need > avail/2:
		return false, fmt.Sprintf("the replay may take %d MiB, more than half the %d MiB available", need>>20, avail>>20)
	}
	return true, fmt.Sprintf("the replay takes at most %d MiB of the %d MiB available", need>>20, avail>>20)
}

// memAvailable reads MemAvailable, in bytes.
func memAvailable(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: bad MemAvailable line %q", path, sc.Text())
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no MemAvailable", path)
}

// mountRAM mounts the tmpfs the images go in, bounded to size bytes (and
// a little more for rounding); nothing is reserved.
func mountRAM(size int64) error {
	unmountRAM()
	if err := os.MkdirAll(crashRAMDir, 0o700); err != nil {
		return err
	}
	opts := fmt.Sprintf("size=%d,mode=0700", size+1<<20)
	if err := unix.Mount("fsbench-crash", crashRAMDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, opts); err != nil {
		return fmt.Errorf("mounting a tmpfs for the replay in memory: %w", err)
	}
	return nil
}

// newRAMImage makes worker i's image of partBytes, all zeros, and store
// of cowBytes, sparse files in the tmpfs, and a loop device over each.
func newRAMImage(i int, partBytes, cowBytes int64) (*ramImage, error) {
	r := &ramImage{}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	var err error
	if r.file, err = sparseFile(filepath.Join(crashRAMDir, fmt.Sprintf("partition-%d.img", i)), partBytes); err != nil {
		return nil, err
	}
	cowFile, err := sparseFile(filepath.Join(crashRAMDir, fmt.Sprintf("snapshot-%d.img", i)), cowBytes)
	if err != nil {
		return nil, err
	}
	defer cowFile.Close()
	if r.part, err = loopAttach(r.file); err != nil {
		return nil, err
	}
	if r.cow, err = loopAttach(cowFile); err != nil {
		return nil, err
	}
	ok = true
	return r, nil
}

// Close closes what r holds, which detaches its loop devices once no
// snapshot uses them.
func (r *ramImage) close() {
	for _, f := range []*os.File{r.part, r.cow, r.file} {
		if f != nil {
			f.Close()
		}
	}
}

func sparseFile(path string, size int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// loopAttach puts a free loop device over f, which it leaves as soon as
// the last user closes it (LO_FLAGS_AUTOCLEAR), and returns the device
// open.
func loopAttach(f *os.File) (*os.File, error) {
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("loop devices (the kernel needs BLK_DEV_LOOP): %w", err)
	}
	defer ctl.Close()
	for try := 0; try < 8; try++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("finding a free loop device: %w", err)
		}
		node := fmt.Sprintf("/dev/loop%d", n)
		if _, err := os.Stat(node); errors.Is(err, os.ErrNotExist) {
			// Without devtmpfs (or before it catches up) make the node.
			node = filepath.Join(crashNodeDir, fmt.Sprintf("loop%d", n))
			os.Remove(node)
			if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(unix.Mkdev(7, uint32(n)))); err != nil {
				return nil, fmt.Errorf("device node for loop%d: %w", n, err)
			}
		}
		dev, err := os.OpenFile(node, os.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		cfg := unix.LoopConfig{Fd: uint32(f.Fd())}
		cfg.Info.Flags = unix.LO_FLAGS_AUTOCLEAR
		err = unix.IoctlLoopConfigure(int(dev.Fd()), &cfg)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTTY) {
			// Kernels before 5.8: the two steps LOOP_CONFIGURE joins.
			if err = unix.IoctlSetInt(int(dev.Fd()), unix.LOOP_SET_FD, int(f.Fd())); err == nil {
				err = unix.IoctlLoopSetStatus64(int(dev.Fd()), &cfg.Info)
			}
		}
		if errors.Is(err, unix.EBUSY) {
			dev.Close() // taken since LOOP_CTL_GET_FREE: try the next
			continue
		}
		if err != nil {
			dev.Close()
			return nil, fmt.Errorf("setting up %s: %w", node, err)
		}
		return dev, nil
	}
	return nil, errors.New("no loop device stayed free")
}

// holeFile is a replay's image file: a discard replayed as zeros punches
// a hole, which reads as zeros and frees the memory.
type holeFile struct{ *os.File }

func (f holeFile) ZeroRange(off, n int64) error {
	return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
}

// zeroingDevice is a block device that zeroes a discarded range with
// BLKZEROOUT, the device's own write-zeroes where it has one.
type zeroingDevice struct{ *os.File }

func (d zeroingDevice) ZeroRange(off, n int64) error { return zeroFd(int(d.Fd()), d.Name(), off, n) }

// unmountRAM unmounts the tmpfs, lazily: a loop device the kernel
// detaches a moment later still holds its file, and the memory is freed
// when it does.
func unmountRAM() {
	unix.Unmount(crashRAMDir, unix.MNT_DETACH)
}
