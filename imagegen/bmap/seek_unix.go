//go:build linux || darwin || freebsd

package bmap

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dataExtents lists the data extents of f between the byte offsets start
// and end (the size, for the whole file), with SEEK_DATA/SEEK_HOLE. bmaptool asks FIEMAP first; the two agree on
// written data, but FIEMAP also reports fallocated, never-written extents
// while SEEK_DATA reports those as holes. Such extents read as zeros, like
// holes, so leaving them out of the map loses nothing.
//
// A filesystem without real hole tracking either answers as if the whole
// file were data (Linux's generic implementation) or rejects the whence
// value; both end in the whole file being mapped, which is always a
// correct map, only a slower one to flash.
func dataExtents(f *os.File, start, end int64) ([]extent, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var exts []extent
	var seekErr error
	ctlErr := rc.Control(func(fd uintptr) {
		exts, seekErr = seekExtents(int(fd), start, end)
	})
	if ctlErr != nil {
		return nil, ctlErr
	}
	if errors.Is(seekErr, errNoSeekData) {
		return []extent{{start, end}}, nil
	}
	return exts, seekErr
}

var errNoSeekData = errors.New("SEEK_DATA not supported")

func seekExtents(fd int, start, end int64) ([]extent, error) {
	var exts []extent
	for off := start; off < end; {
		data, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // no data at or after off: the rest is one hole
		}
		if err != nil {
			if off == start && (errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP)) {
				return nil, errNoSeekData
			}
			return nil, fmt.Errorf("SEEK_DATA at %d: %w", off, err)
		}
		if data >= end {
			break
		}
		hole, err := unix.Seek(fd, data, unix.SEEK_HOLE)
		if err != nil {
			return nil, fmt.Errorf("SEEK_HOLE at %d: %w", data, err)
		}
		// The size was taken once, before the scan; a file that grows
		// meanwhile must not stretch the map past the ImageSize it states,
		// nor an extent past the end asked for.
		hole = min(hole, end)
		exts = append(exts, extent{data, hole})
		off = hole
	}
	return exts, nil
}
