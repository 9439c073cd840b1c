package bootinit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// switchRoot makes newRoot the root filesystem and execs init in it, as
// busybox's switch_root does: /dev, /proc and /sys move along (or are
// detached when the new root has no directory for them), the initramfs
// files are deleted to give their memory back, newRoot is moved onto "/"
// and becomes the process's root. It returns only on failure. A file that
// cannot be deleted only costs memory, so that is a warning.
func switchRoot(newRoot, init string, warn func(format string, args ...any)) error {
	for _, dir := range []string{"/dev", "/proc", "/sys"} {
		dst := filepath.Join(newRoot, dir)
		if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
			if err := unix.Mount(dir, dst, "", unix.MS_MOVE, ""); err != nil {
				return fmt.Errorf("moving %s to %s: %w", dir, dst, err)
			}
			continue
		}
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmounting %s (the new root has no %s): %w", dir, dir, err)
		}
	}
	var st unix.Stat_t
	if err := unix.Lstat("/", &st); err != nil {
		return err
	}
	if err := removeTree("/", st.Dev); err != nil {
		warn("deleting the initramfs files: %v", err)
	}
	if err := unix.Chdir(newRoot); err != nil {
		return err
	}
	if err := unix.Mount(".", "/", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("moving %s onto /: %w", newRoot, err)
	}
	if err := unix.Chroot("."); err != nil {
		return fmt.Errorf("chroot: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Access(init, unix.X_OK); err != nil {
		return fmt.Errorf("init %s on the root filesystem: %w (set init= to the program to start)", init, err)
	}
	err := unix.Exec(init, []string{init}, os.Environ())
	return fmt.Errorf("exec %s: %w", init, err)
}

// removeTree deletes everything below dir that is on the device dev,
// leaving mount points (the new root among them) and what is below them
// alone.
func removeTree(dir string, dev uint64) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Dev != dev {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if err := removeTree(p, dev); err != nil {
				errs = append(errs, err)
				continue
			}
			// A directory that is a mount point on the same device
			// cannot exist; one still busy means something went wrong.
			if err := unix.Rmdir(p); err != nil && !errors.Is(err, unix.EBUSY) {
				errs = append(errs, fmt.Errorf("rmdir %s: %w", p, err))
			}
			continue
		}
		if err := unix.Unlink(p); err != nil {
			errs = append(errs, fmt.Errorf("unlink %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
