package imagegen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// scratch is room in memory for the filesystem images while they are
// built. Every mkfs tool syncs its output before it exits, so an image
// built beside the outputs is written to disk once by its tool, only to
// be copied into the disk image and written again; and the tool waits
// for the first write. In a tmpfs that sync costs nothing, and only the
// disk image, which must survive a power cut once renamed into place, is
// synced.
//
// A partition's image takes room only where it is written, but a tool
// may write all of it, so a partition is put in memory only while the
// full sizes of the partitions there fit in half of what the tmpfs and
// the memory have free; the others are built beside the outputs, as
// without a tmpfs. Only the image file goes there: a staged tree, which
// a compressing filesystem may hold larger than its partition, stays on
// disk. A build killed outright (SIGKILL, a test's timeout) cannot remove
// its directory; the next build removes it (removeStale), as memory is
// not a disk that someone cleans up.
type scratch struct {
	dir  string // "" when no tmpfs is used
	mu   sync.Mutex
	room int64 // bytes that may still be reserved
}

// newScratch makes a private directory in parent, a tmpfs, or returns a
// scratch that keeps everything on disk when parent is no tmpfs or has
// no room. The images' content is the same in memory and on disk.
func newScratch(parent string) *scratch {
	if memoryRoom(parent) <= 0 {
		return &scratch{}
	}
	removeStale(parent)
	room := memoryRoom(parent) / 2
	dir, err := os.MkdirTemp(parent, scratchPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return &scratch{}
	}
	return &scratch{dir: dir, room: room}
}

// scratchPrefix starts the name of every scratch directory, followed by
// the builder's process id.
const scratchPrefix = "fsbench-scratch-"

// removeStale removes the scratch directories in parent that this user's
// builds left when they were killed: those whose process is gone.
func removeStale(parent string) {
	names, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range names {
		rest, ok := strings.CutPrefix(e.Name(), scratchPrefix)
		pid, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !e.IsDir() || err != nil || n <= 0 || !ownedByMe(e) || processAlive(n) {
			continue
		}
		os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}

// reserve returns the directory for an image of size bytes, the scratch
// directory when it has room, else "", and the function that gives the
// room back.
func (s *scratch) reserve(size int64) (string, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" || size > s.room {
		return "", func() {}
	}
	s.room -= size
	var once sync.Once
	return s.dir, func() {
		once.Do(func() {
			s.mu.Lock()
			s.room += size
			s.mu.Unlock()
		})
	}
}

// short reports whether the tmpfs now has less than size bytes free:
// someone else filled it, and a build that failed there is tried again on
// disk.
func (s *scratch) short(size int64) bool {
	return s.dir != "" && tmpfsFree(s.dir) < size
}

func (s *scratch) remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
