// Package atomicfile writes files so that a reader, or a crash, sees the
// old file or the complete new one, never a truncated mix: data goes to a
// temporary file beside the final path, which is synced and renamed into
// place. It never leaves a temporary file behind on an error it sees.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// File is a file being written under a temporary name.
type File struct {
	*os.File
	final string
	mode  os.FileMode
	done  bool
}

// Create starts a file that Commit will put at path with the given mode.
func Create(path string, mode os.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, final: path, mode: mode}, nil
}

// Commit syncs the file, renames it into place and syncs the directory,
// so that the rename itself survives a power cut.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	err := f.Chmod(f.mode)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.final)
	}
	if err != nil {
		os.Remove(f.Name())
		f.done = true
		return err
	}
	f.done = true
	return syncDir(filepath.Dir(f.final))
}

// Abort discards the file; after Commit it does nothing, so it can be
// deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	f, err := Create(path, mode)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// WriteFunc writes path through fill: the file appears complete or not at
// all.
func WriteFunc(path string, mode os.FileMode, fill func(w io.Writer) error) error {
	f, err := Create(path, mode)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}
