package bmap

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
)

// BlockSize is the block size of every map this package writes. bmaptool
// create uses the block size of the filesystem holding the image, which
// is 4096 on ext4, XFS and btrfs as usually made; fixing it keeps the map
// the same wherever the image was built.
const BlockSize = 4096

// Stats describes a written map.
type Stats struct {
	ImageSize    int64 // bytes
	BlockSize    int   // bytes, always BlockSize
	Blocks       int64 // blocks covering ImageSize, the last possibly partial
	MappedBlocks int64 // blocks listed in the map
}

// Write scans the file at imagePath for data ranges (SEEK_DATA/SEEK_HOLE
// via golang.org/x/sys/unix, falling back to treating the whole file as
// mapped if the filesystem does not support it) and writes the bmap XML to
// w. Ranges are in 4096-byte blocks; a range's checksum covers exactly its
// bytes (the last block may be partial when the image size is not a
// multiple of 4096).
//
// The whole map is built before anything is written, so on error nothing
// has been written to w. An empty file is an error, as in bmaptool: its
// map would have no blocks to give a mapped percentage of.
func Write(w io.Writer, imagePath string) (Stats, error) {
	f, err := os.Open(imagePath)
	if err != nil {
		return Stats{}, fmt.Errorf("bmap: %w", err)
	}
	defer f.Close()
	return WriteFile(w, f)
}

// WriteFile is Write for an image already open, which can then be
// renamed meanwhile.
func WriteFile(w io.Writer, f *os.File) (Stats, error) { return writeFile(w, f, nil) }

// writeFile is WriteFile taking the checksums of the runs in ahead
// instead of hashing those runs again; ahead may be nil.
func writeFile(w io.Writer, f *os.File, ahead *Sums) (Stats, error) {
	imagePath := f.Name()
	fi, err := f.Stat()
	if err != nil {
		return Stats{}, fmt.Errorf("bmap: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Stats{}, fmt.Errorf("bmap: %s is not a regular file", imagePath)
	}
	size := fi.Size()
	if size == 0 {
		return Stats{}, fmt.Errorf("bmap: %s is empty", imagePath)
	}

	exts, err := dataExtents(f, 0, size)
	if err != nil {
		return Stats{}, fmt.Errorf("bmap: scanning %s: %w", imagePath, err)
	}
	st := Stats{
		ImageSize: size,
		BlockSize: BlockSize,
		Blocks:    (size + BlockSize - 1) / BlockSize,
	}
	ranges, err := checksum(f, size, toBlocks(exts, BlockSize), ahead)
	if err != nil {
		return Stats{}, fmt.Errorf("bmap: reading %s: %w", imagePath, err)
	}
	for _, r := range ranges {
		st.MappedBlocks += r.last - r.first + 1
	}

	if _, err := w.Write(render(st, ranges)); err != nil {
		return Stats{}, fmt.Errorf("bmap: %w", err)
	}
	return st, nil
}

// checksum hashes each range's bytes, stopping at the end of the image:
// the last block of an image whose size is not a multiple of BlockSize is
// partial, and bmaptool hashes (and copy later verifies) only the bytes
// that exist. A run whose sum ahead holds is not read again.
func checksum(f *os.File, size int64, blocks []blockRange, ahead *Sums) ([]mappedRange, error) {
	buf := make([]byte, 1<<20)
	out := make([]mappedRange, 0, len(blocks))
	for _, b := range blocks {
		if sum, ok := ahead.lookup(b); ok {
			out = append(out, mappedRange{blockRange: b, sum: sum})
			continue
		}
		sum, err := hashRun(f, size, b, buf)
		if err != nil {
			return nil, err
		}
		out = append(out, mappedRange{blockRange: b, sum: sum})
	}
	return out, nil
}

// hashRun returns the SHA-256 of the bytes of run b of an image of size
// bytes, reading through buf.
func hashRun(f *os.File, size int64, b blockRange, buf []byte) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	off := b.first * BlockSize
	n := min((b.last+1)*BlockSize, size) - off
	h := sha256.New()
	got, err := io.CopyBuffer(h, io.NewSectionReader(f, off, n), buf)
	if err != nil {
		return sum, err
	}
	// A file truncated during the scan would otherwise yield a map
	// whose checksums silently describe fewer bytes than it claims.
	if got != n {
		return sum, errors.New("image shrank while it was being mapped")
	}
	h.Sum(sum[:0])
	return sum, nil
}
