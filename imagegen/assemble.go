package imagegen

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/imagegen/bmap"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/internal/digest"
	"github.com/fsbench/fsbench/plan"
)

// imageFile is an image being written: a sparse file of the exact size
// under a temporary name (atomicfile), renamed into place only once
// complete and synced, so that no truncated image is ever at the final
// path. Partitions are placed from several goroutines at once, at
// offsets that do not overlap.
//
// Each partition's runs of data are hashed for the block map as soon as
// it is placed (sums), while the next partitions are built; every write
// after that goes through writer, which makes the map hash the bytes it
// changes afresh.
type imageFile struct {
	*atomicfile.File
	final string
	// dense: the image is filled with a byte other than zero (erased
	// flash), so every byte of a placed file is written, zeros included.
	dense   bool
	sums    *bmap.Sums
	hashing sync.WaitGroup
}

func newImageFile(final string, size int64, fill byte) (*imageFile, error) {
	tmp, err := atomicfile.Create(final, 0o644)
	if err != nil {
		return nil, err
	}
	if err := tmp.Truncate(size); err != nil {
		tmp.Abort()
		return nil, err
	}
	if fill != 0 {
		if err := fillFile(tmp.File, size, fill); err != nil {
			tmp.Abort()
			return nil, err
		}
	}
	return &imageFile{File: tmp, final: final, sums: bmap.NewSums(), dense: fill != 0}, nil
}

// fillFile writes size bytes of b from the start of f.
func fillFile(f *os.File, size int64, b byte) error {
	buf := bytes.Repeat([]byte{b}, int(min(size, copyBufSize)))
	for off := int64(0); off < size; off += int64(len(buf)) {
		if _, err := f.WriteAt(buf[:min(int64(len(buf)), size-off)], off); err != nil {
			return err
		}
	}
	return nil
}

// place copies the data of the file at path to off, refusing a file
// larger than limit, and starts writing it back to disk: the final sync
// then finds most of the image already written.
func (f *imageFile) place(off int64, path string, limit int64) error {
	if err := copyFileAt(f.File.File, off, path, limit, f.dense); err != nil {
		return err
	}
	startWriteback(f.File.File, off, limit)
	// A failed hash only leaves the runs for the map to hash.
	f.hashing.Go(func() { f.sums.Add(f.File.File, off, off+limit) })
	return nil
}

// writer is the image for writes after its partitions are placed: each
// write makes the block map hash the bytes it changes afresh. Only once
// the hashing of the placed partitions is over (wait) may it be used.
func (f *imageFile) writer() io.WriterAt { return forgetful{f} }

// wait waits for the hashing of the placed partitions.
func (f *imageFile) wait() { f.hashing.Wait() }

type forgetful struct{ f *imageFile }

func (w forgetful) WriteAt(b []byte, off int64) (int, error) {
	w.f.sums.Forget(off, off+int64(len(b)))
	return w.f.File.WriteAt(b, off)
}

// assemble completes an image whose partitions are placed: the raw
// regions, the partition table, then the image's sync, and meanwhile the
// block map and the compressed copies, which read the image from the page
// cache. It returns them all under temporary names, the image first, for
// the build to rename together with the boot files and the manifest,
// with one directory sync for all.
func (b *builder) assemble(ctx context.Context, img plan.Image, out *imageFile) (*ImageManifest, []*atomicfile.File, error) {
	out.wait()
	for _, r := range img.Raw {
		if err := copyRawAt(out.writer(), r, b.input(r.File), out.dense); err != nil {
			return nil, nil, fmt.Errorf("raw region %s: %w", r.Name, err)
		}
	}
	// The table goes last: a raw region may carry boot code in the first
	// sector, which the table must not lose, and must not overwrite.
	if err := writeTable(out.writer(), img); err != nil {
		return nil, nil, fmt.Errorf("partition table: %w", err)
	}
	im := imageManifest(img)
	var err error
	if b.opts.FullSHA256 {
		if im.SHA256, err = fileSHA256(out.File.File); err != nil {
			return nil, nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	synced := make(chan error, 1)
	go func() { synced <- out.Sync() }()
	sum, files, err := b.derived(img, out)
	if serr := <-synced; err == nil {
		err = serr
	}
	if err != nil {
		abortAll(files)
		return nil, nil, err
	}
	im.BmapSHA256 = sum
	return im, append([]*atomicfile.File{out.File}, files...), nil
}

// derived writes the block map, then the compressed copies, of the image
// out, under temporary names, and returns the block map's SHA-256. On
// error it returns what it wrote, for the caller to abort.
func (b *builder) derived(img plan.Image, out *imageFile) (string, []*atomicfile.File, error) {
	var xml bytes.Buffer
	if _, err := out.sums.WriteFile(&xml, out.File.File); err != nil {
		return "", nil, fmt.Errorf("block map: %w", err)
	}
	sum, bm, err := bmapFile(out.final, xml.Bytes())
	if err != nil {
		return "", nil, fmt.Errorf("block map: %w", err)
	}
	files := []*atomicfile.File{bm}
	for _, format := range b.opts.Compress {
		b.log.Infof("compressing %s to .%s", img.File, format)
		z, err := compressImage(out.Name(), out.final, format)
		if err != nil {
			return "", files, err
		}
		files = append(files, z)
	}
	return sum, files, nil
}

// input resolves a path the spec named, relative to the spec.
func (b *builder) input(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(b.opts.SpecDir, p)
}

// copyFileAt copies the data of the file at path into dst at off,
// refusing a file larger than limit; dense copies its zeros too.
func copyFileAt(dst io.WriterAt, off int64, path string, limit int64, dense bool) error {
	src, size, err := openAtMost(path, limit)
	if err != nil {
		return err
	}
	defer src.Close()
	if dense {
		return copyDense(dst, off, src, 0, size, make([]byte, copyBufSize))
	}
	return copySparse(dst, off, src)
}

// openAtMost opens the file at path and returns its size, refusing a
// file larger than limit.
func openAtMost(path string, limit int64) (*os.File, int64, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := src.Stat()
	if err != nil {
		src.Close()
		return nil, 0, err
	}
	if fi.Size() > limit {
		src.Close()
		return nil, 0, fmt.Errorf("%s holds %d bytes, more than the %d bytes of its place", path, fi.Size(), limit)
	}
	return src, fi.Size(), nil
}

// copyRawAt copies the data of the raw region r's file, at path, to
// r.Offset, except the bytes in r.Holes, which the partition table
// writes; like copyFileAt it leaves holes where the file has holes or
// zeros (but dense, which copies the zeros too), and refuses a file
// larger than the region.
func copyRawAt(dst io.WriterAt, r plan.Raw, path string, dense bool) error {
	if len(r.Holes) == 0 {
		return copyFileAt(dst, r.Offset, path, r.Size, dense)
	}
	src, size, err := openAtMost(path, r.Size)
	if err != nil {
		return err
	}
	defer src.Close()
	for _, h := range r.Holes {
		if h.Offset < 0 || h.Size <= 0 || h.Offset+h.Size > r.Size {
			return fmt.Errorf("hole of %d bytes at %d is not inside the %d bytes of the region", h.Size, h.Offset, r.Size)
		}
	}
	holes := slices.Clone(r.Holes)
	slices.SortFunc(holes, func(a, b plan.Hole) int { return cmp.Compare(a.Offset, b.Offset) })
	buf := make([]byte, copyBufSize)
	// The pieces of the file between the holes, each copied as
	// copySparse copies a whole file: data extents only.
	pos := int64(0)
	for _, h := range append(holes, plan.Hole{Offset: size}) {
		if end := min(h.Offset, size); pos < end {
			piece := copyExtents
			if dense {
				piece = copyDense
			}
			if err := piece(dst, r.Offset, src, pos, end, buf); err != nil {
				return err
			}
		}
		pos = max(pos, h.Offset+h.Size)
	}
	return nil
}

// copyExtents copies the data extents of src between start and end to
// dst at off+start, where copyRange leaves out all-zero blocks.
func copyExtents(dst io.WriterAt, off int64, src *os.File, start, end int64, buf []byte) error {
	for pos := start; pos < end; {
		data, err := src.Seek(pos, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			return nil // only a hole remains
		}
		if err != nil {
			data = pos // no SEEK_DATA support: treat all as data
		}
		if data >= end {
			return nil
		}
		hole, err := src.Seek(data, unix.SEEK_HOLE)
		if err != nil || hole > end {
			hole = end
		}
		if err := copyRange(dst, off, src, data, hole, buf); err != nil {
			return err
		}
		pos = hole
	}
	return nil
}

// fileSHA256 digests the whole of f, holes included, whatever its offset.
func fileSHA256(f *os.File) (string, error) {
	sum, _, err := digest.Reader(io.NewSectionReader(f, 0, 1<<62))
	return sum, err
}

// bmapFile writes IMAGE.bmap beside the image, for `bmaptool copy`,
// which then writes only the image's data to the card, under a temporary
// name, and returns the map's SHA-256. The map holds the image's size and
// a checksum of every data range, so its digest identifies the image at
// the cost of reading only its data, where a plain SHA-256 would also
// read every hole.
func bmapFile(image string, xml []byte) (string, *atomicfile.File, error) {
	sum := sha256.Sum256(xml)
	f, err := prepared(image+".bmap", xml)
	return hex.EncodeToString(sum[:]), f, err
}
