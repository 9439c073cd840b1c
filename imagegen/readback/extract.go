package readback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readSquashfs extracts the image as root, which keeps owners, setuid
// bits, device nodes, hard links and xattrs, and lists the tree.
func readSquashfs(ctx context.Context, _, image string) (Listing, error) {
	parent, err := os.MkdirTemp("", "readback-squashfs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(parent)
	dest := filepath.Join(parent, "root")
	if _, _, err := runTool(ctx, nil, nil, "unsquashfs", "-no-progress", "-d", dest, image); err != nil {
		return nil, err
	}
	return listDir(ctx, dest, All)
}

// readVFAT copies the whole filesystem out with mcopy and lists names,
// sizes and data: FAT holds nothing else. Long names are UTF-16 on disk;
// mcopy decodes them through the locale, so it runs with a UTF-8 one.
func readVFAT(ctx context.Context, _, image string) (Listing, error) {
	parent, err := os.MkdirTemp("", "readback-vfat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(parent)
	dest := filepath.Join(parent, "root")
	if err := os.Mkdir(dest, 0o700); err != nil {
		return nil, err
	}
	env := []string{"MTOOLS_SKIP_CHECK=1", "LC_ALL=C.UTF-8", "TZ=UTC"}
	if _, _, err := runTool(ctx, env, nil, "mcopy", "-s", "-n", "-Q", "-i", image, "::/", dest); err != nil {
		// An empty filesystem has nothing to copy, which mcopy reports
		// as an error; mdir tells the two apart.
		if empty, derr := vfatEmpty(ctx, env, image); derr != nil || !empty {
			return nil, err
		}
	}
	return listDir(ctx, dest, Data)
}

// vfatEmpty reports whether the root directory of a FAT image is empty.
func vfatEmpty(ctx context.Context, env []string, image string) (bool, error) {
	out, _, err := runTool(ctx, env, nil, "mdir", "-b", "-a", "-i", image, "::/")
	if err != nil {
		return false, err
	}
	return len(out) == 0, nil
}

// mountReader reads a filesystem by mounting it read-only.
func mountReader(fsType, opts string) func(context.Context, string, string) (Listing, error) {
	return func(ctx context.Context, _, image string) (l Listing, err error) {
		err = withMount(ctx, fsType, opts, image, func(dir string) error {
			var lerr error
			l, lerr = listDir(ctx, dir, All)
			return lerr
		})
		return l, err
	}
}

// withMount mounts image read-only, through a read-only loop device that
// mount detaches when the filesystem is unmounted, on a new temporary
// directory, runs fn on it, and unmounts it whatever happens: on error, on
// cancellation and on panic. The directory is removed only once it is no
// longer a mount point, and never recursively.
func withMount(ctx context.Context, fsType, opts, image string, fn func(dir string) error) (err error) {
	dir, err := os.MkdirTemp("", "readback-"+fsType+"-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.Remove(dir); rerr != nil && err == nil {
			err = rerr
		}
	}()
	defer func() {
		// Also when mount itself failed or was killed: it may have
		// mounted before it died.
		if mounted, _ := isMountpoint(dir); mounted {
			if uerr := unmount(dir); uerr != nil && err == nil {
				err = uerr
			}
		}
	}()
	if _, _, err := runTool(ctx, nil, nil, "mount", "-r", "-t", fsType, "-o", "loop,"+opts, image, dir); err != nil {
		return err
	}
	if mounted, err := isMountpoint(dir); err != nil || !mounted {
		return fmt.Errorf("mount reported success, but %s is not a mount point (%v)", dir, err)
	}
	return fn(dir)
}

// isMountpoint reports whether dir is the root of a mounted filesystem:
// its device differs from its parent's.
func isMountpoint(dir string) (bool, error) {
	var st, parent unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return false, err
	}
	if err := unix.Lstat(filepath.Dir(dir), &parent); err != nil {
		return false, err
	}
	return st.Dev != parent.Dev, nil
}

// unmount unmounts dir, retrying while it is busy, and detaches it lazily
// as a last resort so that the loop device goes once nothing uses it. It
// does not use the caller's context: a cancelled read must still unmount.
func unmount(dir string) error {
	var last error
	for i := 0; i < 20; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, _, err := runTool(ctx, nil, nil, "umount", dir)
		cancel()
		if mounted, serr := isMountpoint(dir); serr == nil && !mounted {
			return nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := runTool(ctx, nil, nil, "umount", "--lazy", dir); err != nil {
		return errors.Join(last, err)
	}
	if mounted, _ := isMountpoint(dir); mounted {
		return fmt.Errorf("%s is still mounted: %w", dir, errors.Join(last, syscall.EBUSY))
	}
	return nil
}
