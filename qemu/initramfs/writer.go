package initramfs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Writer writes a newc cpio archive. Its methods are not safe for concurrent
// use. After the first error every later call returns that error, so a
// caller may check only Close.
type Writer struct {
	w      io.Writer
	closer io.Closer // the gzip stream, closed after the trailer; nil if plain
	ino    uint32    // last inode number handed out
	mtime  uint32
	kinds  map[string]uint32 // archived path -> type bits, for parent and duplicate checks
	err    error
	closed bool
}

// NewWriter returns a Writer that writes an uncompressed archive to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, kinds: map[string]uint32{}}
}

// SetModTime sets the mtime, in seconds since the Unix epoch, of the entries
// added after it (default 0). Use a fixed value such as SOURCE_DATE_EPOCH,
// never the current time, or the archive stops being reproducible.
func (w *Writer) SetModTime(sec uint32) { w.mtime = sec }

// Dir adds a directory. mode holds permission bits only (e.g. 0o755).
func (w *Writer) Dir(path string, mode uint32) error {
	// nlink 2 is what a directory with no subdirectories has; the kernel
	// ignores it for directories.
	return w.add(path, typeDir, mode, 2, 0, 0, 0, nil)
}

// File adds a regular file with the given contents. mode holds permission
// bits only (e.g. 0o755 for init).
func (w *Writer) File(path string, mode uint32, data []byte) error {
	return w.add(path, typeFile, mode, 1, 0, 0, int64(len(data)), func(out io.Writer) error {
		_, err := out.Write(data)
		return err
	})
}

// FileFrom adds a regular file whose bytes are those of the host file src.
// Only the bytes are copied: the mode is the given one, not src's.
func (w *Writer) FileFrom(path string, mode uint32, src string) error {
	if w.err != nil || w.closed {
		return w.state()
	}
	f, err := os.Open(src)
	if err != nil {
		return w.fail(fmt.Errorf("initramfs: %w", err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return w.fail(fmt.Errorf("initramfs: %w", err))
	}
	if !fi.Mode().IsRegular() {
		return w.fail(fmt.Errorf("initramfs: %s is not a regular file", src))
	}
	size := fi.Size()
	return w.add(path, typeFile, mode, 1, 0, 0, size, func(out io.Writer) error {
		// The header already promised size bytes; a file that changed
		// under us must fail rather than corrupt the archive.
		n, err := io.CopyN(out, f, size)
		if err != nil {
			return fmt.Errorf("initramfs: copying %s: %d of %d bytes: %w", src, n, size, err)
		}
		return nil
	})
}

// Symlink adds a symbolic link at path pointing to target. The kernel
// creates it as given; target is not checked against the archive.
func (w *Writer) Symlink(path, target string) error {
	if w.err != nil || w.closed {
		return w.state()
	}
	if target == "" || strings.IndexByte(target, 0) >= 0 {
		return w.fail(fmt.Errorf("initramfs: symlink %q has an empty target or one with NUL", path))
	}
	return w.add(path, typeSymlink, 0o777, 1, 0, 0, int64(len(target)), func(out io.Writer) error {
		_, err := io.WriteString(out, target)
		return err
	})
}

// CharDev adds a character device node. The kernel needs dev/console (5, 1)
// in the initramfs to give init its stdin/stdout/stderr, because devtmpfs is
// not mounted yet when init starts.
func (w *Writer) CharDev(path string, mode uint32, major, minor uint32) error {
	return w.add(path, typeCharDev, mode, 1, major, minor, 0, nil)
}

// Close writes the trailer and, for a gzip Writer, finishes the gzip stream.
// It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.err != nil || w.closed {
		return w.state()
	}
	// The trailer is an empty entry with inode 0 and nlink 1, as GNU cpio
	// writes it.
	if err := writeHeader(w.w, header{nlink: 1, name: trailerName}); err != nil {
		return w.fail(err)
	}
	if w.closer != nil {
		if err := w.closer.Close(); err != nil {
			return w.fail(err)
		}
	}
	w.closed = true
	return nil
}

// add validates an entry, writes its header, its data (through body) and
// the data padding.
func (w *Writer) add(path string, typ, mode, nlink, rmajor, rminor uint32, size int64, body func(io.Writer) error) error {
	if w.err != nil || w.closed {
		return w.state()
	}
	rel, err := cleanPath(path)
	if err != nil {
		return w.fail(err)
	}
	if mode&^0o7777 != 0 {
		return w.fail(fmt.Errorf("initramfs: %s: mode %#o has bits beyond the permissions; the type comes from the method", rel, mode))
	}
	if _, dup := w.kinds[rel]; dup {
		return w.fail(fmt.Errorf("initramfs: %s added twice", rel))
	}
	if p := parent(rel); p != "" && w.kinds[p] != typeDir {
		return w.fail(fmt.Errorf("initramfs: %s: parent directory %s was not added first with Dir", rel, p))
	}
	if size > math.MaxUint32 {
		return w.fail(fmt.Errorf("initramfs: %s: %d bytes do not fit a newc header", rel, size))
	}
	w.ino++
	h := header{
		ino: w.ino, mode: typ | mode, nlink: nlink, mtime: w.mtime,
		filesize: uint32(size), rdevmajor: rmajor, rdevminor: rminor, name: rel,
	}
	if err := writeHeader(w.w, h); err != nil {
		return w.fail(err)
	}
	if body != nil {
		if err := body(w.w); err != nil {
			return w.fail(err)
		}
	}
	if err := writePad(w.w, size); err != nil {
		return w.fail(err)
	}
	w.kinds[rel] = typ
	return nil
}

var errClosed = errors.New("initramfs: writer is closed")

func (w *Writer) state() error {
	if w.err != nil {
		return w.err
	}
	return errClosed
}

// fail makes err sticky: once part of an entry may have been written, the
// archive is unusable, and a caller checking only Close must still see it.
func (w *Writer) fail(err error) error {
	w.err = err
	return err
}
