package populate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsbench/fsbench/wire/bootabi"
	"golang.org/x/sys/unix"
)

// Helper does a helper boot's job once the initramfs has mounted /dev and
// loaded the filesystem's module: it mounts the target device, extracts
// the tarball on the source device into it, unmounts it, mounts it again
// read-only and counts what it finds, which checks the filesystem as its
// own kernel driver sees it. It writes the marker line to out.
func Helper(opts map[string]string, out io.Writer) error {
	err := helper(opts, out)
	if err != nil {
		fmt.Fprintf(out, "%s: %v\n", bootabi.PopulateFailed, err)
	}
	return err
}

func helper(opts map[string]string, out io.Writer) error {
	src, dst, fstype := opts[bootabi.PopulateSource], opts[bootabi.PopulateTarget], opts[bootabi.PopulateFSType]
	if src == "" || dst == "" || fstype == "" {
		return fmt.Errorf("the kernel command line needs %s=, %s= and %s=", bootabi.PopulateSource, bootabi.PopulateTarget, bootabi.PopulateFSType)
	}
	for _, dev := range []string{src, dst} {
		if err := waitFor(dev, 30*time.Second); err != nil {
			return err
		}
	}
	const mnt = "/newroot"
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return err
	}
	if err := unix.Mount(dst, mnt, fstype, 0, ""); err != nil {
		return fmt.Errorf("mount -t %s %s: %w", fstype, dst, err)
	}
	f, err := os.Open(src)
	if err != nil {
		unix.Unmount(mnt, 0)
		return err
	}
	st, err := Extract(bufio.NewReaderSize(f, 1<<20), mnt)
	f.Close()
	if err != nil {
		unix.Unmount(mnt, 0)
		return fmt.Errorf("extracting: %w", err)
	}
	unix.Sync()
	if err := unix.Unmount(mnt, 0); err != nil {
		return fmt.Errorf("umount: %w", err)
	}
	if err := unix.Mount(dst, mnt, fstype, unix.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("mounting again read-only: %w", err)
	}
	n, err := count(mnt)
	unix.Unmount(mnt, 0)
	if err != nil {
		return fmt.Errorf("reading back: %w", err)
	}
	// mkfs may add entries of its own (lost+found), never fewer.
	if n < st.Entries {
		return fmt.Errorf("wrote %d entries but read back %d", st.Entries, n)
	}
	fmt.Fprintf(out, "%s %d entries %d bytes\n", bootabi.PopulateOK, st.Entries, st.Bytes)
	return nil
}

// count walks dir and counts its entries the way Extract counts them:
// dir itself, then every path, a hard link once per name.
func count(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		return nil
	})
	return n, err
}

func waitFor(dev string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(dev); err == nil {
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear within %s", dev, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
