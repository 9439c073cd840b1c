// Package populate fills a mounted filesystem from a tar stream, keeping
// owners, modes, hard links, device nodes, FIFOs, xattrs and timestamps. It
// runs inside a QEMU helper boot, as root, for filesystems that have no
// offline populate tool (nilfs2): fsbench build makes the empty filesystem
// on the host, boots a helper VM with the filesystem and a tarball of the
// staged tree as disks, and the helper extracts it here. It lives under
// target/ because it runs in the guest, inside the runner binary; it links
// only the standard library and golang.org/x/sys, and it must never write
// outside the directory it extracts into (a member that climbs out is an
// error).
package populate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Stats count what Extract wrote.
type Stats struct {
	Entries int
	Bytes   int64
}

// Extract writes every entry of the tar stream r under dir. Names that
// would leave dir are refused; no symlink is ever followed while writing.
// Directory modes and times are applied last, so that entries can be
// written into read-only directories and do not disturb their mtimes.
func Extract(r io.Reader, dir string) (Stats, error) {
	var st Stats
	tr := newTarReader(r)
	type dirMeta struct {
		path string
		h    *header
	}
	var dirs []dirMeta
	for {
		h, err := tr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, err
		}
		name, err := clean(h.name)
		if err != nil {
			return st, err
		}
		p := filepath.Join(dir, name)
		switch h.typeflag {
		case typeDir:
			if name != "." {
				if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
					return st, err
				}
			}
			dirs = append(dirs, dirMeta{p, h})
			st.Entries++
			continue
		case typeReg, typeRegOld, typeCont:
			n, err := writeFile(p, tr)
			st.Bytes += n
			if err != nil {
				return st, err
			}
		case typeSymlink:
			if err := unix.Symlinkat(h.linkname, unix.AT_FDCWD, p); err != nil {
				return st, fmt.Errorf("symlink %s: %w", name, err)
			}
		case typeLink:
			target, err := clean(h.linkname)
			if err != nil {
				return st, err
			}
			if err := unix.Linkat(unix.AT_FDCWD, filepath.Join(dir, target), unix.AT_FDCWD, p, 0); err != nil {
				return st, fmt.Errorf("hard link %s: %w", name, err)
			}
			st.Entries++
			continue // the link shares the metadata of its target
		case typeChar, typeBlock, typeFifo:
			mode := uint32(unix.S_IFIFO)
			switch h.typeflag {
			case typeChar:
				mode = unix.S_IFCHR
			case typeBlock:
				mode = unix.S_IFBLK
			}
			dev := unix.Mkdev(uint32(h.devmajor), uint32(h.devminor))
			if err := unix.Mknod(p, mode|0o600, int(dev)); err != nil {
				return st, fmt.Errorf("mknod %s: %w", name, err)
			}
		default:
			return st, fmt.Errorf("%s: tar entry type %q is not supported", name, h.typeflag)
		}
		if err := applyMeta(p, h); err != nil {
			return st, fmt.Errorf("%s: %w", name, err)
		}
		st.Entries++
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := applyMeta(dirs[i].path, dirs[i].h); err != nil {
			return st, fmt.Errorf("%s: %w", dirs[i].h.name, err)
		}
	}
	return st, nil
}

// clean makes a tar name relative and refuses one that climbs out.
func clean(name string) (string, error) {
	c := path.Clean("/" + strings.TrimPrefix(name, "./"))
	if strings.Contains(name, "\x00") {
		return "", fmt.Errorf("tar entry %q has a NUL byte", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("tar entry %q climbs out of the filesystem", name)
		}
	}
	if c == "/" {
		return ".", nil
	}
	return c[1:], nil
}

func writeFile(p string, r io.Reader) (int64, error) {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// applyMeta sets owner, mode and xattrs, in that order (chown clears the
// setuid bits and security.capability), then times, without following a
// symlink.
func applyMeta(p string, h *header) error {
	if err := unix.Lchown(p, h.uid, h.gid); err != nil {
		return fmt.Errorf("chown: %w", err)
	}
	if h.typeflag != typeSymlink {
		if err := unix.Fchmodat(unix.AT_FDCWD, p, uint32(h.mode)&0o7777, 0); err != nil {
			return fmt.Errorf("chmod: %w", err)
		}
	}
	for _, name := range h.xattrNames() {
		if err := unix.Lsetxattr(p, name, []byte(h.xattrs[name]), 0); err != nil {
			return fmt.Errorf("xattr %s: %w", name, err)
		}
	}
	ts := []unix.Timespec{unix.NsecToTimespec(h.atime), unix.NsecToTimespec(h.mtime)}
	if h.atime < 0 {
		ts[0] = ts[1]
	}
	return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
}
