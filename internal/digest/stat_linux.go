package digest

import (
	"os"
	"syscall"
)

// statEntry returns the identity of the file fi describes and what the
// cache compares of it, or false for a file the cache must not keep.
func statEntry(fi os.FileInfo) (fileID, entry, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileID{}, entry{}, false
	}
	return fileID{dev: st.Dev, ino: st.Ino}, entry{
		size:  st.Size,
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
	}, true
}
