package stage

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// copyDir passes the directory src through w, in lexical order. This
// process is outside the session, so it reads what is really on disk:
// modes, device numbers and xattrs. Owners become 0:0.
func copyDir(ctx context.Context, w *writer, src string) error {
	return copyDirAt(ctx, w, src, "")
}

// copyDirAt is copyDir with the tree placed at at, a clean path in the
// image ("extlinux"); "" is the root.
func copyDirAt(ctx context.Context, w *writer, src, at string) error {
	// Hard links: the first path seen for an inode carries the data,
	// later ones link to it.
	first := map[[2]uint64]string{}
	err := filepath.WalkDir(src, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		name := filepath.ToSlash(rel)
		if at != "" {
			name = path.Join(at, name)
		}
		h := &tar.Header{
			Name:    name,
			Mode:    int64(st.Mode & 0o7777),
			ModTime: time.Unix(st.Mtim.Unix()),
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			h.Typeflag = tar.TypeDir
		case unix.S_IFLNK:
			h.Typeflag = tar.TypeSymlink
			if h.Linkname, err = os.Readlink(p); err != nil {
				return err
			}
		case unix.S_IFCHR, unix.S_IFBLK:
			h.Typeflag = tar.TypeChar
			if st.Mode&unix.S_IFMT == unix.S_IFBLK {
				h.Typeflag = tar.TypeBlock
			}
			h.Devmajor, h.Devminor = int64(unix.Major(uint64(st.Rdev))), int64(unix.Minor(uint64(st.Rdev)))
		case unix.S_IFIFO:
			h.Typeflag = tar.TypeFifo
		case unix.S_IFREG:
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if target, ok := first[key]; ok {
				h.Typeflag, h.Linkname = tar.TypeLink, target
				break
			}
			if st.Nlink > 1 {
				first[key] = h.Name
			}
			h.Typeflag, h.Size = tar.TypeReg, st.Size
		default:
			// A socket belongs to a running program; tar skips them too.
			return nil
		}
		if h.PAXRecords, err = readXattrs(p); err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			return w.add(h, nil)
		}
		// O_NOFOLLOW: the path was a regular file when it was walked and
		// must not have become a symlink since.
		f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		return w.add(h, f)
	})
	if err != nil {
		return fmt.Errorf("stage: %s: %w", src, err)
	}
	return nil
}

// readXattrs returns the xattrs of p as PAX records, as GNU tar --xattrs
// writes them. A filesystem without xattrs has none.
func readXattrs(p string) (map[string]string, error) {
	size, err := unix.Llistxattr(p, nil)
	if errors.Is(err, unix.ENOTSUP) || size == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "llistxattr", Path: p, Err: err}
	}
	buf := make([]byte, size)
	if size, err = unix.Llistxattr(p, buf); err != nil {
		return nil, &fs.PathError{Op: "llistxattr", Path: p, Err: err}
	}
	out := map[string]string{}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:size]), "\x00"), "\x00") {
		n, err := unix.Lgetxattr(p, name, nil)
		if errors.Is(err, unix.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lgetxattr " + name, Path: p, Err: err}
		}
		v := make([]byte, n)
		if n, err = unix.Lgetxattr(p, name, v); err != nil {
			return nil, &fs.PathError{Op: "lgetxattr " + name, Path: p, Err: err}
		}
		out["SCHILY.xattr."+name] = string(v[:n])
	}
	return out, nil
}
