package imagegen

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing the range to disk
// without waiting for it (sync_file_range, SYNC_FILE_RANGE_WRITE), so that
// the fsync before the image is renamed into place has little left to
// do. It is only a head start: durability still comes from that fsync.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
