package workload

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// Pattern is the content of the files of one iteration.
type Pattern struct {
	Salt string
}

// Stream returns the reader of name's content (endless).
func (p Pattern) Stream(name string) *rand.ChaCha8 {
	return rand.NewChaCha8(seed(p.Salt + "\x00" + name))
}

// Expected is name's content for a check, from the runner's cache of the
// contents it generated: crash_states checks the same files at every
// state, and generating megabytes of pattern each time costs more than
// reading them.
func (p Pattern) Expected(name string) *Content {
	key := p.Salt + "\x00" + name
	contents.Lock()
	defer contents.Unlock()
	c := contents.m[key]
	if c == nil {
		c = &Content{seed: seed(key)}
		c.src = rand.NewChaCha8(c.seed)
		contents.m[key] = c
	}
	return c
}

// Content is a file's content as generated so far.
type Content struct {
	seed [32]byte // stream's
	buf  []byte
	src  *rand.ChaCha8 // where buf ends
}

// contents bounds the cache: beyond maxExpected bytes in all, a check
// generates what it compares and keeps none of it.
var contents = struct {
	sync.Mutex
	m     map[string]*Content
	total int
}{m: map[string]*Content{}}

var MaxExpected = 64 << 20

// At returns the content's bytes [off, off+n).
func (c *Content) At(off int64, n int) []byte {
	end := int(off) + n
	contents.Lock()
	defer contents.Unlock()
	if end <= len(c.buf) {
		return c.buf[off:end]
	}
	if contents.total+end-len(c.buf) > MaxExpected {
		// Too much to keep: generate the range from the start.
		src := rand.NewChaCha8(c.seed)
		skip := make([]byte, min(int(off), 1<<20))
		for left := int(off); left > 0; left -= len(skip) {
			src.Read(skip[:min(left, len(skip))])
		}
		out := make([]byte, n)
		src.Read(out)
		return out
	}
	grow := make([]byte, end-len(c.buf))
	c.src.Read(grow)
	contents.total += len(grow)
	c.buf = append(c.buf, grow...)
	return c.buf[off:end]
}

// seed derives a ChaCha8 seed from key: two FNV-1a 128-bit hashes, of key
// and of key with a suffix. The stream only has to differ from name to
// name and salt to salt; crypto/sha256 would add a tenth to the target
// runner.
func seed(key string) [32]byte {
	var s [32]byte
	h := fnv.New128a()
	h.Write([]byte(key))
	h.Sum(s[:0])
	h.Write([]byte{0})
	h.Sum(s[16:16])
	return s
}
