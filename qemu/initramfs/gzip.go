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
	// DefaultCompression, fixed so that the bytes stay reproducible. On
	// 6.7 MB of Debian 6.1 modules (ext4, jbd2, virtio_blk, xfs) level 9
	// took 4.7 s for an archive 0.7% smaller than level 6 did in 0.58 s;
	// the kernel unpacks either in the same time, and an initramfs is
	// built for every VM a test or a run starts.
	zw, _ := gzip.NewWriterLevel(w, gzip.DefaultCompression) // errors only for invalid levels
	iw := NewWriter(zw)
	iw.closer = zw
	return iw
}
