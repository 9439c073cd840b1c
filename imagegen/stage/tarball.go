package stage

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// copyTarball passes every member of the tarball at path through w.
func copyTarball(ctx context.Context, w *writer, path string) error {
	r, done, err := openTarball(ctx, path)
	if err != nil {
		return fmt.Errorf("stage: %s: %w", path, err)
	}
	tr := tar.NewReader(r)
	for err == nil {
		var h *tar.Header
		if h, err = tr.Next(); err == nil {
			err = w.add(h, tr)
		}
	}
	if errors.Is(err, io.EOF) {
		// Read to the end: the gzip checksum is checked there, and a
		// decompressor blocked on a full pipe would never exit.
		_, err = io.Copy(io.Discard, r)
	}
	if derr := done(err != nil); err == nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("stage: %s: %w", path, err)
	}
	return nil
}

// TarballFile returns the content of the regular file name (a path
// relative to the archive's top, "config.txt") in the tarball at path, the
// last member of that name as tar would extract it, and whether there is
// one. A member over limit bytes is an error.
func TarballFile(ctx context.Context, path, name string, limit int64) (data []byte, found bool, err error) {
	r, done, err := openTarball(ctx, path)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(r)
	for err == nil {
		var h *tar.Header
		if h, err = tr.Next(); err != nil {
			continue
		}
		if n, nerr := cleanName(h.Name); nerr != nil || n != name {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			data, found = nil, false // a later member replaces an earlier one
			continue
		}
		if h.Size > limit {
			err = fmt.Errorf("%s is %d bytes, over %d", name, h.Size, limit)
			break
		}
		data, err = io.ReadAll(tr)
		found = true
	}
	if errors.Is(err, io.EOF) {
		_, err = io.Copy(io.Discard, r)
	}
	if derr := done(err != nil); err == nil {
		err = derr
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return data, found, nil
}

// openTarball returns the uncompressed stream, recognising the compression
// by content, as tar does: gzip and bzip2 are read in Go, xz and zstd by
// their own tools, run without a shell. done releases everything and
// reports the decompressor's failure; abort kills it first.
func openTarball(ctx context.Context, path string) (r io.Reader, done func(abort bool) error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	magic := make([]byte, 8)
	n, _ := f.ReadAt(magic, 0)
	magic = magic[:n]
	closeFile := func(bool) error { return f.Close() }
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return zr, closeFile, nil
	case bytes.HasPrefix(magic, []byte("BZh")):
		return bzip2.NewReader(bufio.NewReader(f)), closeFile, nil
	case bytes.HasPrefix(magic, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return decompress(ctx, f, "xz")
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return decompress(ctx, f, "zstd")
	}
	for _, other := range notTar {
		if bytes.HasPrefix(magic, other.magic) {
			f.Close()
			return nil, nil, fmt.Errorf("%s, not a tarball: contents { tar } takes a tar archive, plain or compressed with gzip, bzip2, xz or zstd", other.what)
		}
	}
	return bufio.NewReader(f), closeFile, nil
}

// decompress runs `tool -d -c` with f on its standard input.
func decompress(ctx context.Context, f *os.File, tool string) (io.Reader, func(bool) error, error) {
	if _, err := exec.LookPath(tool); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("compressed with %s, and %s is not installed", tool, tool)
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, tool, "-d", "-c")
	cmd.Stdin = f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		cancel()
		f.Close()
		return nil, nil, err
	}
	done := func(abort bool) error {
		if abort {
			cancel()
		}
		err := cmd.Wait()
		cancel()
		f.Close()
		if err != nil && !abort {
			return fmt.Errorf("%s: %v %s", tool, err, bytes.TrimSpace(stderr.Bytes()))
		}
		return nil
	}
	return out, done, nil
}

// notTar are archives and images people give for a tarball, by magic.
var notTar = []struct {
	magic []byte
	what  string
}{
	{[]byte("PK\x03\x04"), "a zip archive"}, {[]byte("PK\x05\x06"), "an empty zip archive"},
	{[]byte("7z\xbc\xaf\x27\x1c"), "a 7-Zip archive"}, {[]byte("Rar!"), "a RAR archive"},
	{[]byte("\x89LZO"), "an LZO file"}, {[]byte("\x04\x22\x4d\x18"), "an LZ4 file"},
	{[]byte("hsqs"), "a squashfs image"}, {[]byte("070707"), "a cpio archive"}, {[]byte("070701"), "a cpio archive"},
	{[]byte("!<arch>"), "an ar archive"},
}
