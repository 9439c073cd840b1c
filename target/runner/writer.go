package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/linux"
)

// reliabilityWriter writes pattern files into dir for the reliability
// recipes and logs, outside the filesystem under test, what is durable.
type reliabilityWriter struct {
	dir   string
	pat   pattern
	log   durableLog
	kind  string // small_files, large_file, fsync
	small int64  // bytes per small file
	large int64  // bytes of the large file
	count int    // files per round of small_files
	// limit ends untilCut after so many files or appends (0: until the
	// context ends); noSync counts data durable without syncing it (a
	// negative control of the data check).
	limit  int
	noSync bool
	// Written and Errors count what the writer did; the first write
	// error is kept.
	Written int64
	Files   int
	Err     error
}

// fileName names the n-th file of a writer.
func (w *reliabilityWriter) fileName(n int) string {
	switch w.kind {
	case "small_files":
		return fmt.Sprintf("small-%06d", n)
	case "large_file":
		return fmt.Sprintf("large-%06d", n)
	}
	return "append.log"
}

// intended is the size the writer gives the named file, 0 for the
// append log, which has no end.
func (w *reliabilityWriter) intended(name string) int64 {
	switch {
	case strings.HasPrefix(name, "small-"):
		return w.small
	case strings.HasPrefix(name, "large-"):
		return w.large
	}
	return 0
}

// writeFile writes the first size bytes of name's pattern, in chunks,
// without syncing.
func (w *reliabilityWriter) writeFile(ctx context.Context, name string, size int64) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	src := w.pat.stream(name)
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

// durableLog is where a writer records what it made durable: the sync
// log of power_loss and dm_flakey, crash_states' marks in the write log.
type durableLog interface {
	synced(name string, size int64) error
}

// durable fsyncs f and the directory, then logs its size as synced.
func (w *reliabilityWriter) durable(f *os.File, name string, size int64) error {
	if w.noSync {
		return w.log.synced(name, size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", name, err)
	}
	if err := atomicfile.SyncDir(w.dir); err != nil {
		return fmt.Errorf("fsync of the directory: %w", err)
	}
	return w.log.synced(name, size)
}

// untilCut writes and syncs file after file until ctx ends (the power
// goes before that, normally).
func (w *reliabilityWriter) untilCut(ctx context.Context) error {
	if w.kind == "fsync" {
		return w.appendUntilCut(ctx)
	}
	for n := 1; w.limit == 0 || n <= w.limit; n++ {
		name, size := w.fileName(n), w.intended(w.fileName(n))
		f, err := w.writeFile(ctx, name, size)
		if err != nil {
			return err
		}
		err = w.durable(f, name, size)
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
func (w *reliabilityWriter) appendUntilCut(ctx context.Context) error {
	name := w.fileName(0)
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w.Files = 1
	src := w.pat.stream(name)
	rec := make([]byte, 4096)
	var size int64
	for n := 1; ctx.Err() == nil && (w.limit == 0 || n <= w.limit); n++ {
		first := n == 1
		src.Read(rec)
		if _, err := f.Write(rec); err != nil {
			return err
		}
		size += int64(len(rec))
		w.Written = size
		if !w.noSync {
			if err := f.Sync(); err != nil {
				return fmt.Errorf("fsync %s: %w", name, err)
			}
			if first {
				if err := atomicfile.SyncDir(w.dir); err != nil {
					return err
				}
			}
		}
		if err := w.log.synced(name, size); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// once writes the writer's whole set (one large file, or count small
// files), then syncs the filesystem; it logs the files as synced only when
// every write and the sync succeeded, and keeps going after a failed
// write, as an application that ignores errors would. It is dm_flakey's
// writer.
func (w *reliabilityWriter) once(ctx context.Context) error {
	n := 1
	if w.kind == "small_files" {
		n = w.count
	}
	type done struct {
		name string
		size int64
	}
	var ok []done
	for i := 1; i <= n; i++ {
		name := w.fileName(i)
		size := w.intended(name)
		f, err := w.writeFile(ctx, name, size)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			w.keep(fmt.Errorf("%s: %w", name, err))
			continue
		}
		w.Files++
		ok = append(ok, done{name, size})
	}
	if err := linux.SyncFS(w.dir); err != nil {
		w.keep(fmt.Errorf("syncfs: %w", err))
		return nil
	}
	for _, d := range ok {
		if err := w.log.synced(d.name, d.size); err != nil {
			return err
		}
	}
	return nil
}

func (w *reliabilityWriter) keep(err error) {
	if w.Err == nil {
		w.Err = err
	}
}
