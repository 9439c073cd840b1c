package stage

import (
	"io/fs"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// clampTimes sets the atime and mtime of every entry under root to the
// mtime its archive gave it, clamped to the epoch (entries nobody recorded
// get the epoch). tar has set most of them already; this pass also covers
// directories whose mtime moved when a later entry was added to them.
// atime is set to the same value: archives rarely carry one worth keeping.
//
// The walk lists everything first and sets times in reverse, children
// before their directory, because reading a directory moves its atime
// (relatime updates an atime that is not newer than the mtime). Any later
// reader does the same, so a tool that stores atimes needs its own fix, as
// the ext debugfs step and mkfs.erofs -T are. ctime cannot be set by
// anyone: it is the host's clock when the inode last changed.
//
// The times are not faked: utimensat acts on the real files, which belong
// to the build user, so this runs outside the session.
func (m *manifest) clampTimes(root string) error {
	var paths []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	if err != nil {
		return err
	}
	for _, p := range slices.Backward(paths) {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		t := m.epoch
		if r, ok := m.paths[filepath.ToSlash(rel)]; ok {
			t = r.mtime
		}
		ts := unix.NsecToTimespec(t.UnixNano())
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return &fs.PathError{Op: "utimensat", Path: p, Err: err}
		}
	}
	return nil
}
