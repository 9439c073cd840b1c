package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/linux"
)

// Writer writes pattern files into dir for the reliability
// recipes and logs, outside the filesystem under test, what is durable.
type Writer struct {
	Dir     string
	Pattern Pattern
	Log     DurableLog
	Kind    string // small_files, large_file, fsync
	Small   int64  // bytes per small file
	Large   int64  // bytes of the large file
	Count   int    // files per round of small_files
	// Limit ends untilCut after so many files or appends (0: until the
	// context ends); noSync counts data durable without syncing it (a
	// negative control of the data check).
	Limit  int
	NoSync bool
	// Written and Errors count what the writer did; the first write
	// error is kept.
	Written int64
	Files   int
	Err     error
}

// FileName names the n-th file of a writer.
func (w *Writer) FileName(n int) string {
	switch w.Kind {
	case "small_files":
		return fmt.Sprintf("small-%06d", n)
	case "large_file":
		return fmt.Sprintf("large-%06d", n)
	}
	return "append.log"
}

// Intended is the size the writer gives the named file, 0 for the
// append log, which has no end.
func (w *Writer) Intended(name string) int64 {
	switch {
	case strings.HasPrefix(name, "small-"):
		return w.Small
	case strings.HasPrefix(name, "large-"):
		return w.Large
	}
	return 0
}

// WriteRandom writes the first size bytes of name's pattern, in chunks,
// without syncing.
func (w *Writer) WriteFile(ctx context.Context, name string, size int64) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(w.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	src := w.Pattern.Stream(name)
	buf := make([]byte, 1<<20)
	for left := size; left > 0; {
		if err := ctx.Err(); err != nil {
			f.Close()
			return nil, err
		}
		n := int(min(left, int64(len(buf))))
		src.Read(buf[:n])
		if _, err := f.Write(buf[:n]); err != nil {
			f.Close()
			return nil, err
		}
		w.Written += int64(n)
		left -= int64(n)
	}
	return f, nil
}

// DurableLog is where a writer records what it made durable: the sync
// Log of power_loss and dm_flakey, crash_states' marks in the write log.
type DurableLog interface {
	Synced(name string, size int64) error
}

// Durable fsyncs f and the directory, then logs its size as synced.
func (w *Writer) Durable(f *os.File, name string, size int64) error {
	if w.NoSync {
		return w.Log.Synced(name, size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", name, err)
	}
	if err := atomicfile.SyncDir(w.Dir); err != nil {
		return fmt.Errorf("fsync of the directory: %w", err)
	}
	return w.Log.Synced(name, size)
}

// UntilCut writes and syncs file after file until ctx ends (the power
// goes before that, normally).
func (w *Writer) UntilCut(ctx context.Context) error {
	if w.Kind == "fsync" {
		return w.appendUntilCut(ctx)
	}
	for n := 1; w.Limit == 0 || n <= w.Limit; n++ {
		name, size := w.FileName(n), w.Intended(w.FileName(n))
		f, err := w.WriteFile(ctx, name, size)
		if err != nil {
			return err
		}
		err = w.Durable(f, name, size)
		f.Close()
		if err != nil {
			return err
		}
		w.Files++
	}
	return nil
}

// appendUntilCut appends 4KiB records to one file, each followed by
// fsync, as a log or a database journal does.
func (w *Writer) appendUntilCut(ctx context.Context) error {
	name := w.FileName(0)
	f, err := os.OpenFile(filepath.Join(w.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w.Files = 1
	src := w.Pattern.Stream(name)
	rec := make([]byte, 4096)
	var size int64
	for n := 1; ctx.Err() == nil && (w.Limit == 0 || n <= w.Limit); n++ {
		first := n == 1
		src.Read(rec)
		if _, err := f.Write(rec); err != nil {
			return err
		}
		size += int64(len(rec))
		w.Written = size
		if !w.NoSync {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("fsync %s: %w", name, err)
			}
			if first {
				if err := atomicfile.SyncDir(w.Dir); err != nil {
					return err
				}
			}
		}
		if err := w.Log.Synced(name, size); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Once writes the writer's whole set (one large file, or count small
// Files), then syncs the filesystem; it logs the files as synced only when
// every write and the sync succeeded, and keeps going after a failed
// write, as an application that ignores errors would. It is dm_flakey's
// writer.
func (w *Writer) Once(ctx context.Context) error {
	n := 1
	if w.Kind == "small_files" {
		n = w.Count
	}
	type done struct {
		name string
		size int64
	}
	var ok []done
	for i := 1; i <= n; i++ {
		name := w.FileName(i)
		size := w.Intended(name)
		f, err := w.WriteFile(ctx, name, size)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			w.Keep(fmt.Errorf("%s: %w", name, err))
			continue
		}
		w.Files++
		ok = append(ok, done{name, size})
	}
	if err := linux.SyncFS(w.Dir); err != nil {
		w.Keep(fmt.Errorf("syncfs: %w", err))
		return nil
	}
	for _, d := range ok {
		if err := w.Log.Synced(d.name, d.size); err != nil {
			return err
		}
	}
	return nil
}

// Keep keeps err as the writer's first error.
func (w *Writer) Keep(err error) {
	if w.Err == nil {
		w.Err = err
	}
}
