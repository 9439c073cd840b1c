package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Cache remembers the digests of files by what stat says of them, so
// that a build whose inputs have not changed since the last one need not
// read them again to fingerprint them. A file is known by its device and
// inode; its digest is taken from the cache only while its size, mtime
// and ctime are the ones it had when it was read. Every change of a
// file's contents moves its ctime, which no user can set back.
//
// What the clock cannot tell apart is a change within the same tick as
// the ctime recorded: a digest is therefore kept only for a file whose
// ctime is older than racyWindow when it is read, and whose stat did not
// change while it was read.
//
// A nil *Cache digests every file. The file the cache is kept in holds
// the entries used by one build; a damaged one is ignored.
type Cache struct {
	path string
	load sync.Once // reads the file at path into old, on first use
	mu   sync.Mutex
	old  map[fileID]entry // as loaded
	used map[fileID]entry // taken or added by this build, for Save
}

// fileID names a file on this host.
type fileID struct{ dev, ino uint64 }

// entry is what stat said of a file when its digest was taken.
type entry struct {
	size, mtime, ctime int64 // bytes; nanoseconds since the epoch
	sum                [sha256.Size]byte
}

// racyWindow is how long ago a file must have last changed for its
// digest to be kept: far more than any filesystem's timestamp tick.
var racyWindow = 2 * time.Second

// cacheMagic starts the cache file; a new layout gets a new one.
const cacheMagic = "fsbench digest cache 1\n"

const recordSize = 8*5 + sha256.Size

// OpenCache returns the cache kept in the file at path, empty if there
// is none or it cannot be read. The file is read on the first lookup, by
// whoever digests the inputs, not by the caller.
func OpenCache(path string) *Cache {
	return &Cache{path: path, old: map[fileID]entry{}, used: map[fileID]entry{}}
}

// read loads the file at c.path into c.old.
func (c *Cache) read() {
	data, err := os.ReadFile(c.path)
	if err != nil || len(data) < len(cacheMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return
	}
	body, tail := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], tail) {
		return // torn or damaged: start afresh
	}
	records := body[len(cacheMagic):]
	if len(records)%recordSize != 0 {
		return
	}
	for r := records; len(r) > 0; r = r[recordSize:] {
		u := func(i int) uint64 { return binary.LittleEndian.Uint64(r[8*i:]) }
		e := entry{size: int64(u(2)), mtime: int64(u(3)), ctime: int64(u(4))}
		copy(e.sum[:], r[40:recordSize])
		c.old[fileID{u(0), u(1)}] = e
	}
}

// File returns the hex SHA-256 of the file at path, from the cache when
// the file has not changed since its digest was taken.
func (c *Cache) File(path string) (string, error) {
	if c == nil {
		return File(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", err
	}
	id, e, ok := statEntry(before)
	if !ok {
		sum, _, err := Reader(f)
		return sum, err
	}
	c.load.Do(c.read)
	c.mu.Lock()
	known, found := c.old[id]
	c.mu.Unlock()
	if found && known.size == e.size && known.mtime == e.mtime && known.ctime == e.ctime {
		c.keep(id, known)
		return hex.EncodeToString(known.sum[:]), nil
	}
	start := time.Now()
	sum, _, err := Reader(f)
	if err != nil {
		return "", err
	}
	after, err := f.Stat()
	if err != nil {
		return sum, nil
	}
	if _, e2, _ := statEntry(after); e2 == e && start.UnixNano()-e.ctime > int64(racyWindow) && start.UnixNano()-e.mtime > int64(racyWindow) {
		if _, err := hex.Decode(e.sum[:], []byte(sum)); err == nil {
			c.keep(id, e)
		}
	}
	return sum, nil
}

func (c *Cache) keep(id fileID, e entry) {
	c.mu.Lock()
	c.used[id] = e
	c.mu.Unlock()
}

// Save writes the entries this build used or added, replacing the file
// whole (a reader sees the old cache or the new one). It does not sync:
// a cache lost to a crash is only rebuilt.
func (c *Cache) Save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	var b bytes.Buffer
	b.WriteString(cacheMagic)
	var rec [recordSize]byte
	for id, e := range c.used {
		for i, v := range []uint64{id.dev, id.ino, uint64(e.size), uint64(e.mtime), uint64(e.ctime)} {
			binary.LittleEndian.PutUint64(rec[8*i:], v)
		}
		copy(rec[40:], e.sum[:])
		b.Write(rec[:])
	}
	c.mu.Unlock()
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".digests-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
