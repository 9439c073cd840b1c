package stage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is one file the spec places into the tree. It replaces whatever the
// directory or tarball put at Path (a file, a hard link, a symlink: never
// followed) and is refused where the tree has a directory or where a parent
// of Path is a symlink.
type File struct {
	// Path is the file's path in the image, "/etc/hostname". Missing
	// parents are created 0755 root:root.
	Path string
	// Source is a host file to copy (a symlink there is followed: it is
	// the spec's input, not the tree), or a directory whose tree goes to
	// Path as Dir's does (Mode, UID and GID then do not apply). Exactly
	// one of Source and Content.
	Source string
	// Content is the file's literal content.
	Content *string
	// Mode is the permission bits with setuid, setgid and sticky (at most
	// 07777), applied exactly: the spec supplies any default.
	Mode     uint32
	UID, GID int
}

// Input is what a tree is made of: Dir or Tar (or neither, for an empty
// root), then Files in order.
type Input struct {
	// Dir is a directory copied with its modes, symlinks, hard links,
	// device nodes, FIFOs and xattrs; its owners become 0:0, because a
	// build directory belongs to whoever ran the build. Sockets are left
	// out, as tar does.
	Dir string
	// Tar is a tarball, plain or compressed with gzip, bzip2, xz or zstd
	// (recognised by content). Owners are kept by number.
	Tar string
	// Layers are more tarballs, extracted in order over Dir or Tar: the
	// busybox userland, the runner's payload. A layer's entry replaces
	// what an earlier one put at its path.
	Layers []string
	Files  []File
	// Epoch is SOURCE_DATE_EPOCH: every mtime and atime ends at most this.
	Epoch int64
	// Limit bounds the bytes the tree may take (file data and an inode's
	// worth per entry; 0: no bound): staging stops with a TooLargeError
	// at the first member past it, before the disk fills.
	Limit int64
	// NoSession stages for a filesystem that keeps only names, file data
	// and mtimes (FAT): no fakeroot session, only directories and regular
	// files on disk (see diskSink). Entries still lists every entry with
	// its owner, mode and type, from the archive, so that the caller can
	// refuse the symlinks, devices and FIFOs such a filesystem drops.
	NoSession bool
}

// Tree is a staged tree and the fakeroot session that knows its owners,
// device nodes and xattrs. Close or Remove it: it holds a faked process.
type Tree struct {
	// Root is the tree, the {root} of the filesystems catalogue. Read it
	// only through Command or Entries.
	Root string
	// State is the fakeroot state file faked writes when the session
	// ends: owners, modes and device numbers by inode, but no xattrs, so
	// `fakeroot -i State` shows the tree for inspection and is not a way
	// to build from it.
	State string

	dir  string
	sess *session
	m    *manifest // without a session, what Entries lists
}

// Build stages in into workdir, a directory for this tree alone: Build
// creates it (it must be absent or empty), Root and State live in it, and
// Remove deletes it. On error nothing is left behind.
func Build(ctx context.Context, workdir string, in Input) (_ *Tree, err error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	dir, err := makeWorkdir(workdir)
	if err != nil {
		return nil, err
	}
	t := &Tree{Root: filepath.Join(dir, "root"), State: filepath.Join(dir, "fakeroot.state"), dir: dir}
	defer func() {
		if err != nil {
			t.Remove()
		}
	}()
	// Chmod after Mkdir: the umask must not decide the root's mode.
	if err := os.Mkdir(t.Root, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(t.Root, 0o755); err != nil {
		return nil, err
	}
	m := newManifest(in.Epoch)
	m.limit = in.Limit
	untar := t.untar
	if in.NoSession {
		t.State, t.m = "", m
		untar = t.extract
	} else if t.sess, err = startSession(t.State); err != nil {
		return nil, err
	}
	switch {
	case in.Tar != "":
		err = untar(ctx, func(w *writer) error { return copyTarball(ctx, w, in.Tar) }, m)
	case in.Dir != "":
		err = untar(ctx, func(w *writer) error { return copyDir(ctx, w, in.Dir) }, m)
	}
	if err != nil {
		return nil, err
	}
	// Layers go one archive each, for the same reason as the single files
	// below.
	for _, l := range in.Layers {
		if err := untar(ctx, func(w *writer) error { return copyTarball(ctx, w, l) }, m); err != nil {
			return nil, err
		}
	}
	// Single files go in a second archive, once the first is fully
	// extracted: GNU tar turns symlinks to absolute or ".." targets into
	// placeholder files until its end, and a file replacing such a
	// symlink must replace the real symlink, not race the placeholder.
	if len(in.Files) > 0 {
		if err := untar(ctx, func(w *writer) error { return addFiles(ctx, w, in.Files) }, m); err != nil {
			return nil, err
		}
	}
	if !in.NoSession {
		if err := t.makeReadable(ctx, m); err != nil {
			return nil, err
		}
		if err := t.setXattrs(ctx, m); err != nil {
			return nil, err
		}
	}
	if err := m.clampTimes(t.Root); err != nil {
		return nil, err
	}
	return t, nil
}

// extract is untar without a session: this process creates the entries
// (diskSink). produce's errors already name the input and the member.
func (t *Tree) extract(ctx context.Context, produce func(*writer) error, m *manifest) error {
	s := newDiskSink(t.Root)
	err := produce(&writer{tw: s, m: m})
	if cerr := s.close(); err == nil && cerr != nil {
		err = fmt.Errorf("stage: %w", cerr)
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// makeWorkdir creates workdir, or takes it if it is empty, and makes it
// private: as root the tree holds real setuid files owned by root.
func makeWorkdir(workdir string) (string, error) {
	dir, err := filepath.Abs(workdir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
		names, rerr := os.ReadDir(dir)
		if rerr != nil {
			return "", fmt.Errorf("stage: workdir: %w", rerr)
		}
		if len(names) > 0 {
			return "", fmt.Errorf("stage: workdir %s is not empty", dir)
		}
	} else if err != nil {
		return "", fmt.Errorf("stage: workdir: %w", err)
	}
	return dir, os.Chmod(dir, 0o700)
}

// Close ends the fakeroot session, which writes State. The tree stays on
// disk; Command and Entries fail from then on.
func (t *Tree) Close() error {
	if t.sess == nil {
		return nil
	}
	return t.sess.close()
}

// Remove ends the session and deletes the working directory with the tree.
// Every file in it belongs to the build user, whatever owner the session
// shows, so no privilege is needed.
func (t *Tree) Remove() error {
	err := t.Close()
	if rerr := removeAll(t.dir); err == nil {
		err = rerr
	}
	return err
}

// removeAll retries after making every directory writable: fakeroot keeps
// the build user's rwx on directories, but a tree left by a crashed tool
// may not.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// check refuses what cannot be staged before anything is extracted.
func (in Input) check() error {
	if in.Dir != "" && in.Tar != "" {
		return errors.New("stage: contents take a dir or a tar, not both")
	}
	if in.Dir != "" {
		if fi, err := os.Stat(in.Dir); err != nil {
			return fmt.Errorf("stage: contents dir: %w", err)
		} else if !fi.IsDir() {
			return fmt.Errorf("stage: contents dir %s is not a directory", in.Dir)
		}
	}
	if in.Tar != "" {
		if fi, err := os.Stat(in.Tar); err != nil {
			return fmt.Errorf("stage: contents tar: %w", err)
		} else if !fi.Mode().IsRegular() {
			return fmt.Errorf("stage: contents tar %s is not a file", in.Tar)
		}
	}
	for _, l := range in.Layers {
		if fi, err := os.Stat(l); err != nil {
			return fmt.Errorf("stage: layer: %w", err)
		} else if !fi.Mode().IsRegular() {
			return fmt.Errorf("stage: layer %s is not a file", l)
		}
	}
	if in.Epoch < 0 {
		return fmt.Errorf("stage: epoch %d is before 1970", in.Epoch)
	}
	seen := map[string]bool{}
	for _, f := range in.Files {
		p, err := cleanName(f.Path)
		if err != nil {
			return fmt.Errorf("stage: file %q: %w", f.Path, err)
		}
		switch {
		case p == ".":
			return fmt.Errorf("stage: file %q names the root directory", f.Path)
		case seen[p]:
			return fmt.Errorf("stage: file %q is given twice", f.Path)
		case f.Mode&^0o7777 != 0:
			return fmt.Errorf("stage: file %q: mode %#o has bits beyond 07777", f.Path, f.Mode)
		case !validID(f.UID) || !validID(f.GID):
			return fmt.Errorf("stage: file %q: owner %d:%d out of range", f.Path, f.UID, f.GID)
		case (f.Source == "") == (f.Content == nil):
			return fmt.Errorf("stage: file %q needs exactly one of content and source", f.Path)
		}
		seen[p] = true
		if f.Source != "" {
			fi, err := os.Stat(f.Source)
			if err != nil {
				return fmt.Errorf("stage: file %q: %w", f.Path, err)
			}
			if !fi.Mode().IsRegular() && !fi.IsDir() {
				return fmt.Errorf("stage: file %q: source %s is neither a regular file nor a directory", f.Path, f.Source)
			}
		}
	}
	return nil
}

// validID is a uid or gid the kernel can store; 2^32-1 is (uid_t)-1.
func validID(id int) bool { return id >= 0 && int64(id) < 1<<32-1 }
