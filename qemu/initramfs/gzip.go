package initramfs

import (
	"compress/gzip"
	"io"
)

// NewGzipWriter returns a Writer whose archive is gzip-compressed, as the
// kernel accepts for an initramfs. The gzip header has a zero ModTime and no
// name so that the output depends only on the entries; Close finishes the
// gzip stream but does not close w.
func NewGzipWriter(w io.Writer) *Writer {
	// BestCompression: the archive is built once and read at every boot, and
	// the level is fixed so the bytes stay reproducible.
	zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // errors only for invalid levels
	iw := NewWriter(zw)
	iw.closer = zw
	return iw
}
