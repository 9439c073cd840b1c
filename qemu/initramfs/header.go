package initramfs

import (
	"fmt"
	"io"
)

// File type bits of the cpio mode field (the same values as Linux's S_IF*).
const (
	typeDir     = 0o040000
	typeFile    = 0o100000
	typeSymlink = 0o120000
	typeCharDev = 0o020000
)

// trailerName marks the end of a cpio archive.
const trailerName = "TRAILER!!!"

// headerLen is the fixed size of a newc header: the 6-byte magic and 13
// fields of 8 hex digits.
const headerLen = 110

// header holds the newc fields this package varies; uid, gid, devmajor,
// devminor and check are always 0.
type header struct {
	ino       uint32
	mode      uint32
	nlink     uint32
	mtime     uint32
	filesize  uint32
	rdevmajor uint32
	rdevminor uint32
	name      string
}

// pad4 returns how many zero bytes bring n up to a multiple of 4. The kernel
// aligns both the end of the name (counted from the start of the header) and
// the end of the data to 4 bytes; a wrong pad makes it read garbage as the
// next header.
func pad4(n int) int { return (4 - n%4) % 4 }

var zeros [4]byte

// writeHeader writes the header, the NUL-terminated name and the padding
// that aligns the data that follows.
func writeHeader(w io.Writer, h header) error {
	namesize := len(h.name) + 1 // the NUL counts
	s := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		h.ino, h.mode, 0, 0, h.nlink, h.mtime, h.filesize,
		0, 0, h.rdevmajor, h.rdevminor, namesize, 0)
	buf := make([]byte, 0, headerLen+namesize+3)
	buf = append(buf, s...)
	buf = append(buf, h.name...)
	buf = append(buf, 0)
	buf = append(buf, zeros[:pad4(headerLen+namesize)]...)
	_, err := w.Write(buf)
	return err
}

// writePad writes the zero bytes that follow size bytes of data.
func writePad(w io.Writer, size int64) error {
	_, err := w.Write(zeros[:pad4(int(size%4))])
	return err
}
