package bmap

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"sync"
)

// Sums holds checksums of runs of data blocks taken while an image is
// still being written, so that its map need not read those runs again.
// A builder that places the partitions one by one hashes each
// partition's runs as soon as it is placed, while the next ones are
// built, and the map of the finished image takes the sums it can.
//
// The map takes a sum only for the very run it was taken for (same
// first and last block); a run that the finished image extends, or
// joins to data beside it, is hashed afresh, so the map is the same
// bytes with or without Sums. What Sums cannot see is a later change of
// the bytes inside a run: whoever writes to the image after Add must
// Forget the bytes it writes, and must not write to a region while Add
// reads it.
type Sums struct {
	mu   sync.Mutex
	runs map[blockRange][sha256.Size]byte
}

// NewSums returns an empty Sums.
func NewSums() *Sums { return &Sums{runs: map[blockRange][sha256.Size]byte{}} }

// Add hashes the runs of data blocks of f between the byte offsets start
// and end, as a map of f would list them. A block that start or end cuts
// is left out, as is every run it belongs to in the map: the bytes beside
// the region may still change.
func (s *Sums) Add(f *os.File, start, end int64) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("bmap: %w", err)
	}
	size := fi.Size()
	first := (start + BlockSize - 1) / BlockSize // the first whole block
	past := end / BlockSize                      // the block after the last whole one
	if end >= size {
		// The image's last block is whole for the map even when partial.
		past = (size + BlockSize - 1) / BlockSize
	}
	if start < 0 || first >= past {
		return nil
	}
	exts, err := dataExtents(f, first*BlockSize, min(past*BlockSize, size))
	if err != nil {
		return fmt.Errorf("bmap: scanning %s: %w", f.Name(), err)
	}
	buf := make([]byte, 1<<20)
	for _, b := range toBlocks(exts, BlockSize) {
		sum, err := hashRun(f, size, b, buf)
		if err != nil {
			return fmt.Errorf("bmap: reading %s: %w", f.Name(), err)
		}
		s.mu.Lock()
		s.runs[b] = sum
		s.mu.Unlock()
	}
	return nil
}

// Forget drops the sum of every run that has a byte between the offsets
// start and end: those bytes are about to change.
func (s *Sums) Forget(start, end int64) {
	if end <= start {
		return
	}
	first, last := start/BlockSize, (end-1)/BlockSize
	s.mu.Lock()
	defer s.mu.Unlock()
	for b := range s.runs {
		if b.first <= last && b.last >= first {
			delete(s.runs, b)
		}
	}
}

// WriteFile is the package's WriteFile, which takes from s the sum of
// every run s holds instead of reading the run again.
func (s *Sums) WriteFile(w io.Writer, f *os.File) (Stats, error) { return writeFile(w, f, s) }

// lookup returns the sum taken for run b, if any; s may be nil.
func (s *Sums) lookup(b blockRange) ([sha256.Size]byte, bool) {
	if s == nil {
		return [sha256.Size]byte{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, ok := s.runs[b]
	return sum, ok
}
