package readback

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/digest"
)

// ListDir lists the directory tree at root from lstat, as a filesystem
// listing: root itself is "/", symlinks are not followed, hard links are
// grouped by device and inode, and xattrs are read with llistxattr (none
// where the host filesystem has no xattrs). It reads every regular file.
func ListDir(root string) (Listing, error) {
	return listDir(context.Background(), root, All)
}

// listDir lists root and keeps only the fields in holds.
func listDir(ctx context.Context, root string, holds Fields) (Listing, error) {
	var entries []Entry
	var keys []*inodeKey
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		e, key, err := lstatEntry(p, rel, holds)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("readback: listing %s: %w", root, err)
	}
	return finish(entries, keys), nil
}

func lstatEntry(p, rel string, holds Fields) (Entry, *inodeKey, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return Entry{}, nil, &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	e := Entry{Path: "/", Holds: holds}
	if rel != "." {
		e.Path = "/" + filepath.ToSlash(rel)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		e.Type = File
	case unix.S_IFDIR:
		e.Type = Dir
	case unix.S_IFLNK:
		e.Type = Symlink
	case unix.S_IFCHR:
		e.Type = Char
	case unix.S_IFBLK:
		e.Type = Block
	case unix.S_IFIFO:
		e.Type = FIFO
	case unix.S_IFSOCK:
		e.Type = Socket
	default:
		return Entry{}, nil, fmt.Errorf("%s: unknown file type %#o", p, st.Mode&unix.S_IFMT)
	}
	if holds&Modes != 0 {
		e.Perm = st.Mode & 0o7777
	}
	if holds&Owners != 0 {
		e.UID, e.GID = st.Uid, st.Gid
	}
	var key *inodeKey
	switch e.Type {
	case File:
		if holds&Data != 0 {
			e.Size = st.Size
			sum, n, err := hashFile(p)
			if err != nil {
				return Entry{}, nil, err
			}
			if n != st.Size {
				return Entry{}, nil, fmt.Errorf("%s: read %d bytes of %d", p, n, st.Size)
			}
			e.SHA256 = sum
		}
		if holds&HardLinks != 0 && st.Nlink > 1 {
			key = &inodeKey{uint64(st.Dev), st.Ino}
		}
	case Symlink:
		if holds&Symlinks != 0 {
			t, err := os.Readlink(p)
			if err != nil {
				return Entry{}, nil, err
			}
			e.Target = t
		}
	case Char, Block:
		if holds&Devices != 0 {
			e.Major, e.Minor = unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))
		}
	}
	if holds&Xattrs != 0 {
		x, err := listXattrs(p)
		if err != nil {
			return Entry{}, nil, err
		}
		e.Xattrs = x
	}
	return e, key, nil
}

// hashFile returns the SHA-256 of the file at p and how many bytes it
// read, refusing to follow a symlink.
func hashFile(p string) (string, int64, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	sum, n, err := digest.Reader(f)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", p, err)
	}
	return sum, n, nil
}

// listXattrs returns the xattrs of p, not following a symlink, as
// "name=value".
func listXattrs(p string) ([]string, error) {
	size, err := unix.Llistxattr(p, nil)
	if errors.Is(err, unix.ENOTSUP) || (err == nil && size == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, &fs.PathError{Op: "llistxattr", Path: p, Err: err}
	}
	buf := make([]byte, size)
	if size, err = unix.Llistxattr(p, buf); err != nil {
		return nil, &fs.PathError{Op: "llistxattr", Path: p, Err: err}
	}
	var out []string
	for _, name := range strings.Split(strings.TrimRight(string(buf[:size]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		n, err := unix.Lgetxattr(p, name, nil)
		if err != nil {
			return nil, &fs.PathError{Op: "lgetxattr " + name, Path: p, Err: err}
		}
		v := make([]byte, n)
		if n, err = unix.Lgetxattr(p, name, v); err != nil {
			return nil, &fs.PathError{Op: "lgetxattr " + name, Path: p, Err: err}
		}
		out = append(out, XattrString(name, v[:n]))
	}
	return out, nil
}
