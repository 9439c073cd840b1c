package stage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// diskSink writes the normalised archive straight to the tree, without a
// session, for Input.NoSession: only what a filesystem without owners
// reads is created on disk, directories and regular files (hard links as
// links), with the owner's rw (rwx for directories) added to their mode
// and no setuid, setgid or sticky bit. Symlinks, device nodes and FIFOs
// are not created at all: they exist only in the manifest, for Entries,
// whose caller refuses them for such a filesystem. With no symlink on
// disk, nothing can be written through one.
type diskSink struct {
	root    string
	cur     *os.File        // the regular file being written
	virtual map[string]bool // paths that exist only in the manifest
}

func newDiskSink(root string) *diskSink {
	return &diskSink{root: root, virtual: map[string]bool{}}
}

// WriteHeader creates the entry h describes, replacing what the tree has
// at its path, as GNU tar does; the writer has already checked that
// nothing lies beneath a symlink or a file and that no name climbs out.
func (s *diskSink) WriteHeader(h *tar.Header) error {
	if err := s.close(); err != nil {
		return err
	}
	name, err := cleanName(h.Name)
	if err != nil {
		return err
	}
	if name == "." {
		return nil // Build made the root
	}
	p := filepath.Join(s.root, filepath.FromSlash(name))
	perm := os.FileMode(h.Mode & 0o777)
	if h.Typeflag == tar.TypeDir {
		delete(s.virtual, name)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			return os.Chmod(p, perm|0o700)
		}
		if err := s.unlink(p); err != nil {
			return err
		}
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		return os.Chmod(p, perm|0o700) // not the umask's choice
	}
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return fmt.Errorf("/%s: cannot replace a directory", name)
	}
	if err := s.unlink(p); err != nil {
		return err
	}
	delete(s.virtual, name)
	switch h.Typeflag {
	case tar.TypeReg:
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		if err := f.Chmod(perm | 0o600); err != nil {
			f.Close()
			return err
		}
		s.cur = f
	case tar.TypeLink:
		target, err := cleanName(h.Linkname)
		if err != nil {
			return err
		}
		if s.virtual[target] {
			s.virtual[name] = true
			return nil
		}
		return os.Link(filepath.Join(s.root, filepath.FromSlash(target)), p)
	default: // symlinks, devices, FIFOs
		s.virtual[name] = true
	}
	return nil
}

// Write writes the current regular file's data.
func (s *diskSink) Write(b []byte) (int, error) {
	if s.cur == nil {
		return 0, errors.New("stage: data outside a regular file")
	}
	return s.cur.Write(b)
}

// ReadFrom lets io.Copy hand a source file to the kernel (copy_file_range).
func (s *diskSink) ReadFrom(r io.Reader) (int64, error) {
	if s.cur == nil {
		return 0, errors.New("stage: data outside a regular file")
	}
	return s.cur.ReadFrom(r)
}

// close finishes the current regular file.
func (s *diskSink) close() error {
	if s.cur == nil {
		return nil
	}
	err := s.cur.Close()
	s.cur = nil
	return err
}

// unlink removes a file or hard link at p, if there is one.
func (s *diskSink) unlink(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
