package imagegen

import (
	"bytes"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// copyBufSize is the unit of the sparse copy: large enough for full
// sequential speed, small enough that all-zero runs inside data extents
// (inode tables, journals) are recognised and left as holes.
const copyBufSize = 1 << 20

// copySparse writes the data of src into dst at offset off, leaving holes
// where src has holes or zeros: dst is a fresh sparse file whose unwritten
// ranges already read as zeros.
func copySparse(dst io.WriterAt, off int64, src *os.File) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	buf := make([]byte, copyBufSize)
	for pos := int64(0); pos < size; {
		start, err := src.Seek(pos, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			return nil // only a hole remains
		}
		if err != nil {
			start = pos // no SEEK_DATA support: treat all as data
		}
		end, err := src.Seek(start, unix.SEEK_HOLE)
		if err != nil || end > size {
			end = size
		}
		if err := copyRange(dst, off, src, start, end, buf); err != nil {
			return err
		}
		pos = end
	}
	return nil
}

func copyRange(dst io.WriterAt, off int64, src *os.File, start, end int64, buf []byte) error {
	for p := start; p < end; {
		n := int64(len(buf))
		if end-p < n {
			n = end - p
		}
		if _, err := src.ReadAt(buf[:n], p); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if !allZero(buf[:n]) {
			if _, err := dst.WriteAt(buf[:n], off+p); err != nil {
				return err
			}
		}
		p += n
	}
	return nil
}

var zeros = make([]byte, copyBufSize)

func allZero(b []byte) bool { return bytes.Equal(b, zeros[:len(b)]) }

// copyDense copies src from start to end to dst at off+start, every
// byte: in an image filled with another byte, zeros are data.
func copyDense(dst io.WriterAt, off int64, src *os.File, start, end int64, buf []byte) error {
	for p := start; p < end; {
		n := min(int64(len(buf)), end-p)
		if _, err := src.ReadAt(buf[:n], p); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if _, err := dst.WriteAt(buf[:n], off+p); err != nil {
			return err
		}
		p += n
	}
	return nil
}
