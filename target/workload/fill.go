package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/target/linux"
	"golang.org/x/sys/unix"
)

// FillDir is the directory fill data lives in, inside the filesystem.
const FillDir = "fsbench-fill"

// fillShape is a distribution of file sizes.
type fillShape struct {
	perDir int
	size   func(r *rand.Rand) int64
}

var fillShapes = map[string]fillShape{
	// rootfs: shaped like a Buildroot root filesystem: mostly files
	// under 64KiB, some of a few hundred KiB, a few of several MiB.
	"rootfs": {perDir: 64, size: func(r *rand.Rand) int64 {
		switch x := r.IntN(100); {
		case x < 85:
			return r.Int64N(64 << 10)
		case x < 99:
			return 64<<10 + r.Int64N(960<<10)
		default:
			return 1<<20 + r.Int64N(7<<20)
		}
	}},
	"large_files": {perDir: 16, size: func(*rand.Rand) int64 { return 64 << 20 }},
	"small_files": {perDir: 256, size: func(r *rand.Rand) int64 { return 1 + r.Int64N(16<<10) }},
}

// Fill writes files shaped as shape into dir/FillDir until the
// filesystem holding dir is percent full, then syncs. The sizes and the
// data come from a fixed seed, so every filesystem receives the same files.
// It returns the bytes written.
func Fill(ctx context.Context, dir, shape string, percent int) (int64, error) {
	sh, ok := fillShapes[shape]
	if !ok {
		return 0, fmt.Errorf("unknown fill shape %q", shape)
	}
	root := filepath.Join(dir, FillDir)
	if err := os.RemoveAll(root); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return 0, err
	}
	r := rand.New(rand.NewPCG(1, 2))
	// Files take their data from a pool of random bytes at random
	// offsets: not compressible, and cheap on a slow target.
	pool := make([]byte, 4<<20)
	rand.NewChaCha8([32]byte{'f', 's', 'b', 'e', 'n', 'c', 'h'}).Read(pool)
	var written, synced int64
	for i := 0; ; i++ {
		if i%32 == 0 {
			full, err := reached(dir, percent, written-synced >= 64<<20)
			if err != nil {
				return written, err
			}
			if full {
				break
			}
			if written-synced >= 64<<20 {
				synced = written
			}
		}
		if err := ctx.Err(); err != nil {
			return written, err
		}
		sub := filepath.Join(root, fmt.Sprintf("d%04d", i/sh.perDir))
		if i%sh.perDir == 0 {
			if err := os.Mkdir(sub, 0o755); err != nil {
				return written, err
			}
		}
		n, err := WriteRandom(filepath.Join(sub, fmt.Sprintf("f%05d", i)), sh.size(r), pool, r)
		written += n
		if err != nil {
			return written, err
		}
	}
	unix.Sync()
	return written, nil
}

// reached reports whether the filesystem holding dir is percent full.
// Delayed allocation reserves more than it will use (xfs counts worst-case
// metadata), so a count that looks full is taken again after a sync; sync
// also forces one, to keep the dirty data bounded.
func reached(dir string, percent int, sync bool) (bool, error) {
	if !sync {
		used, err := UsedPercent(dir)
		if err != nil || used < float64(percent) {
			return false, err
		}
	}
	if err := linux.SyncFS(dir); err != nil {
		return false, err
	}
	used, err := UsedPercent(dir)
	return used >= float64(percent), err
}

// WriteRandom writes a file of size bytes at path, taken from pool at
// offsets r chooses, and returns the bytes written.
func WriteRandom(path string, size int64, pool []byte, r *rand.Rand) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	var n int64
	for n < size {
		off := r.IntN(len(pool) / 2)
		b := pool[off : off+int(min(int64(len(pool)/2), size-n))]
		m, err := f.Write(b)
		n += int64(m)
		if err != nil {
			f.Close()
			return n, err
		}
	}
	return n, f.Close()
}

// UsedPercent is how full the filesystem holding dir is, as df counts it.
func UsedPercent(dir string) (float64, error) {
	var s unix.Statfs_t
	if err := unix.Statfs(dir, &s); err != nil {
		return 0, err
	}
	used := float64(s.Blocks - s.Bfree)
	avail := used + float64(s.Bavail)
	if avail == 0 {
		return 100, nil
	}
	return 100 * used / avail, nil
}

// RemoveFill deletes the fill data of the filesystem mounted at dir.
func RemoveFill(dir string) error {
	err := os.RemoveAll(filepath.Join(dir, FillDir))
	unix.Sync()
	return err
}
