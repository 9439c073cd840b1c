package imagegen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/imagegen/bmap"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
)

// assemble writes the image: a sparse file of the exact size, the
// partition table, each partition's content at its offset, and the raw
// regions. It is written under a temporary name and renamed into place
// only once complete and synced (atomicfile).
func (b *builder) assemble(ctx context.Context, img plan.Image, built []*builtFS, dir string) (*ImageManifest, error) {
	final := filepath.Join(dir, img.File)
	tmp, err := atomicfile.Create(final, 0o644)
	if err != nil {
		return nil, err
	}
	defer tmp.Abort()
	if err := tmp.Truncate(img.Size); err != nil {
		return nil, err
	}
	for i, p := range img.Partitions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := p.Image
		if built[i] != nil {
			src = built[i].path
		} else if src != "" {
			src = b.input(src)
		}
		if src == "" {
			continue // a partition left empty on purpose
		}
		if err := copyFileAt(tmp.File, p.Offset, src, p.Size); err != nil {
			return nil, fmt.Errorf("partition %s: %w", p.Name, err)
		}
	}
	for _, r := range img.Raw {
		if err := copyFileAt(tmp.File, r.Offset, b.input(r.File), r.Size); err != nil {
			return nil, fmt.Errorf("raw region %s: %w", r.Name, err)
		}
	}
	// The table goes last: a raw region may carry boot code in the first
	// sector, which the table must not lose, and must not overwrite.
	if err := writeTable(tmp.File, img); err != nil {
		return nil, fmt.Errorf("partition table: %w", err)
	}
	im := imageManifest(img, built)
	if b.opts.FullSHA256 {
		if im.SHA256, err = fileSHA256(tmp.File); err != nil {
			return nil, err
		}
	}
	if err := tmp.Commit(); err != nil {
		return nil, err
	}
	if im.BmapSHA256, err = writeBmap(final); err != nil {
		return nil, fmt.Errorf("block map: %w", err)
	}
	for _, format := range b.opts.Compress {
		b.log.Infof("compressing %s to .%s", img.File, format)
		if err := compressImage(final, format); err != nil {
			return nil, err
		}
	}
	return im, nil
}

// input resolves a path the spec named, relative to the spec.
func (b *builder) input(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(b.opts.SpecDir, p)
}

// copyFileAt copies the data of the file at path into dst at off,
// refusing a file larger than limit.
func copyFileAt(dst *os.File, off int64, path string, limit int64) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s holds %d bytes, more than the %d bytes of its place", path, fi.Size(), limit)
	}
	return copySparse(dst, off, src)
}

func fileSHA256(f *os.File) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeBmap writes IMAGE.bmap beside the image, for `bmaptool copy`,
// which then writes only the image's data to the card, and returns the
// map's SHA-256. The map holds the image's size and a checksum of every
// data range, so its digest identifies the image at the cost of reading
// only its data, where a plain SHA-256 would also read every hole.
func writeBmap(image string) (string, error) {
	var b bytes.Buffer
	if _, err := bmap.Write(&b, image); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:]), atomicfile.WriteFile(image+".bmap", b.Bytes(), 0o644)
}
