// Package atomicfile writes files so that a reader, or a crash, sees the
// old file or the complete new one, never a truncated mix: data goes to a
// temporary file beside the final path, which is synced and renamed into
// place. It never leaves a temporary file behind on an error it sees.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// File is a file being written under a temporary name.
type File struct {
	*os.File
	final  string
	mode   os.FileMode
	done   bool
	synced bool
}

// partialMark follows a final name in its temporary name, then the id of
// the process that writes it: .NAME.partial-PID-RANDOM.
const partialMark = ".partial-"

// PartialOwner returns the process id in the temporary name name, or
// false when name is none: a file a killed process left behind has the
// id of a process that is gone.
func PartialOwner(name string) (int, bool) {
	i := strings.LastIndex(name, partialMark)
	if !strings.HasPrefix(name, ".") || i < 0 {
		return 0, false
	}
	pid, _, ok := strings.Cut(name[i+len(partialMark):], "-")
	n, err := strconv.Atoi(pid)
	return n, ok && err == nil && n > 0
}

// Create starts a file that Commit will put at path with the given mode.
func Create(path string, mode os.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+partialMark+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, final: path, mode: mode}, nil
}

// Sync gives the file its mode and writes its data to disk, still under
// the temporary name; Commit then only renames it. Syncing early, while
// other work goes on, takes the wait for the disk off the end. Nothing
// may be written after Sync.
func (f *File) Sync() error {
	if f.synced {
		return nil
	}
	err := f.Chmod(f.mode)
	if err == nil {
		err = f.File.Sync()
	}
	f.synced = err == nil
	return err
}

// Commit syncs the file, renames it into place and syncs the directory,
// so that the rename itself survives a power cut.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	if err := f.rename(); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(f.final))
}

// rename syncs the file unless Sync did, closes it and renames it into
// place; on failure the temporary file is removed.
func (f *File) rename() error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.final)
	}
	f.done = true
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// CommitAll commits files in order, syncing the data of those not yet
// synced at the same time, so that their waits for the disk overlap, and
// each directory once, after the last rename. Every file is complete at
// its final path or absent from it; when one fails, the files after it
// are aborted and those before it stay.
func CommitAll(files ...*File) error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if !f.done {
			wg.Go(func() { errs[i] = f.Sync() })
		}
	}
	wg.Wait()
	dirs := map[string]bool{}
	var order []string
	var err error
	for i, f := range files {
		if f.done {
			continue
		}
		if err == nil {
			err = errs[i]
		}
		if err == nil {
			err = f.rename()
		}
		if err != nil {
			f.Abort()
			continue
		}
		if d := filepath.Dir(f.final); !dirs[d] {
			dirs[d] = true
			order = append(order, d)
		}
	}
	for _, d := range order {
		if derr := SyncDir(d); err == nil {
			err = derr
		}
	}
	return err
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

// SyncDir fsyncs a directory, so that a new entry in it (a renamed file)
// is durable.
func SyncDir(dir string) error {
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
