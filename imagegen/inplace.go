package imagegen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/imagegen/stage"
)

// inPlace describes a contents directory that mkfs can read where it is,
// for a type whose populate steps set every entry's owner and times
// afterwards (filesystems.Type.SetsInodes). Staging would copy the whole
// tree only to change what those steps set anyway, and in a fakeroot
// session that slows every file operation down.
//
// The directory qualifies only if reading it in place gives the image a
// staged copy gives (a test compares the bytes): no sockets (staging
// leaves them out, mke2fs -d would not), no xattrs (staging orders them;
// read in place they come in the order of the host's filesystem, and a
// security.* one would be copied from the build host unchecked), and
// nothing this process cannot read. Otherwise the build stages as usual.
type inPlace struct {
	entries []stage.Entry
	// reowned are the paths whose owner on disk is not the image's
	// 0:0, for the debugfs script to change.
	reowned map[string]bool
}

// readInPlace walks dir as copyDir in the stage package would, and
// returns the entries a staged copy would have (owners 0:0) with the
// mtimes on disk, or why the directory must be staged.
func readInPlace(ctx context.Context, dir string) (*inPlace, string, error) {
	ip := &inPlace{reowned: map[string]bool{}}
	var why string
	errStage := errors.New("stage")
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		if why = stageReason(p, st.Mode); why != "" {
			return errStage
		}
		// MTime is what mke2fs copies, not clamped: the debugfs step
		// must set it unless it is the epoch already.
		e := stage.Entry{
			Path: rel, Mode: st.Mode, Size: st.Size, Inode: st.Ino, Links: uint64(st.Nlink),
			MTime: st.Mtim.Sec,
		}
		switch st.Mode & modeType {
		case modeChar, modeBlock:
			e.Major, e.Minor = unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))
		case modeSymlink:
			if e.Target, err = os.Readlink(p); err != nil {
				return err
			}
		}
		if st.Uid != 0 || st.Gid != 0 {
			ip.reowned[rel] = true
		}
		ip.entries = append(ip.entries, e)
		return nil
	})
	if errors.Is(err, errStage) {
		return nil, why, nil
	}
	if err != nil {
		return nil, "", err
	}
	sort.Slice(ip.entries, func(i, j int) bool { return ip.entries[i].Path < ip.entries[j].Path })
	return ip, "", nil
}

// stageReason says why the entry at p cannot be read in place, or "".
func stageReason(p string, mode uint32) string {
	switch mode & modeType {
	case modeSocket:
		return p + " is a socket"
	case modeDir:
		if unix.Access(p, unix.R_OK|unix.X_OK) != nil {
			return p + " is not readable"
		}
	case modeSymlink, modeChar, modeBlock, modeFIFO:
	default:
		if unix.Access(p, unix.R_OK) != nil {
			return p + " is not readable"
		}
	}
	size, err := unix.Llistxattr(p, nil)
	switch {
	case errors.Is(err, unix.ENOTSUP):
	case err != nil:
		return fmt.Sprintf("%s: listing xattrs: %v", p, err)
	case size > 0:
		return p + " has xattrs"
	}
	return ""
}
