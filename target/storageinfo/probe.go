package storageinfo

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The probe estimates the erase block of a device that states none, the
// way flashbench's -a (Arnd Bergmann; flashbench.c, try_read_alignments)
// does: for each power-of-two size S from twice the block size up, it
// times reading one small block three ways around multiples of S — just
// before the boundary ("pre", ending at it), across it ("on", half on each
// side) and just after it ("post", starting at it) — at several multiples
// of the largest size, keeping the fastest of several tries. A read across
// a boundary the device's translation layer cares about costs more than
// one beside it; "on" minus the mean of "pre" and "post" jumps at the
// smallest size that is such a boundary and stays up for every larger one,
// since every multiple of a larger power of two is one of the smaller.
// Analyze reads that jump. Only reads are issued, with O_DIRECT so the page
// cache does not answer instead of the device.

// ProbeConfig says how much to measure. Zero fields take the defaults.
type ProbeConfig struct {
	BlockSize int64                // bytes per read; default 16 KiB, flashbench's
	MaxAlign  int64                // the largest boundary tried; default 64 MiB
	Positions int                  // multiples of the largest size read at; default 7, flashbench's
	Tries     int                  // passes, of which the fastest counts; default 8
	Clock     func() time.Duration // a monotonic clock; default the runtime's
}

func (c ProbeConfig) withDefaults() ProbeConfig {
	if c.BlockSize == 0 {
		c.BlockSize = 16 << 10
	}
	if c.MaxAlign == 0 {
		c.MaxAlign = 64 << 20
	}
	if c.Positions == 0 {
		c.Positions = 7
	}
	if c.Tries == 0 {
		c.Tries = 8
	}
	if c.Clock == nil {
		start := time.Now()
		c.Clock = func() time.Duration { return time.Since(start) } // monotonic
	}
	return c
}

// Sample is the timing of one boundary size: for each position, the
// fastest read before, across and after the boundary.
type Sample struct {
	Align         int64
	Pre, On, Post []time.Duration
}

// Measure times reads around power-of-two boundaries of r, a device of
// size bytes, and returns one Sample per boundary size, smallest first.
func Measure(ctx context.Context, r io.ReaderAt, size int64, cfg ProbeConfig) ([]Sample, error) {
	cfg = cfg.withDefaults()
	bs := cfg.BlockSize
	if bs < 1024 || bs&(bs-1) != 0 {
		return nil, fmt.Errorf("block size %d is not a power of two of at least 1024", bs)
	}
	// The largest boundary: a power of two whose Positions multiples, and
	// the block read after the last, all lie inside the device.
	span := int64(0)
	for a := 2 * bs; a <= cfg.MaxAlign && a*int64(cfg.Positions)+bs <= size; a *= 2 {
		span = a
	}
	if span == 0 {
		return nil, fmt.Errorf("a device of %d bytes is too small to probe with %d-byte reads", size, bs)
	}
	var samples []Sample
	for a := 2 * bs; a <= span; a *= 2 {
		samples = append(samples, Sample{Align: a,
			Pre: fastest(cfg.Positions), On: fastest(cfg.Positions), Post: fastest(cfg.Positions)})
	}
	buf := alignedBuffer(bs)
	for try := 0; try < cfg.Tries; try++ {
		for i := range samples {
			s := &samples[i]
			for _, m := range []struct {
				off   int64
				times []time.Duration
			}{{s.Align - bs, s.Pre}, {s.Align - bs/2, s.On}, {s.Align, s.Post}} {
				for p := range cfg.Positions {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					t0 := cfg.Clock()
					if _, err := r.ReadAt(buf, m.off+int64(p)*span); err != nil {
						return nil, fmt.Errorf("read at %d: %w", m.off+int64(p)*span, err)
					}
					m.times[p] = min(m.times[p], cfg.Clock()-t0)
				}
			}
		}
	}
	return samples, nil
}

// fastest is n timings that any measurement beats.
func fastest(n int) []time.Duration {
	t := make([]time.Duration, n)
	for i := range t {
		t[i] = time.Duration(1<<63 - 1)
	}
	return t
}

// alignedBuffer is n bytes at a page-aligned address, as O_DIRECT needs.
func alignedBuffer(n int64) []byte {
	const align = 4096
	b := make([]byte, n+align)
	off := int((align - uintptr(unsafe.Pointer(&b[0]))%align) % align)
	return b[off : off+int(n)]
}

// Probe measures the block device at path with O_DIRECT reads and
// analyses the timings. It writes nothing. The device's logical block
// size must divide half the block size, or O_DIRECT refuses the reads that
// straddle the boundary.
func Probe(ctx context.Context, path string, cfg ProbeConfig) (Estimate, []Sample, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return Estimate{}, nil, fmt.Errorf("opening %s with O_DIRECT: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	size, err := deviceSize(f)
	if err != nil {
		return Estimate{}, nil, err
	}
	cfg = cfg.withDefaults()
	if lbs, err := unix.IoctlGetInt(fd, unix.BLKSSZGET); err == nil && (cfg.BlockSize/2)%int64(lbs) != 0 {
		return Estimate{}, nil, fmt.Errorf("%s has %d-byte logical blocks: the block size must be a multiple of %d", path, lbs, 2*lbs)
	}
	samples, err := Measure(ctx, f, size, cfg)
	if err != nil {
		return Estimate{}, nil, fmt.Errorf("probing %s: %w", path, err)
	}
	return Analyze(samples, AnalysisConfig{}), samples, nil
}

// deviceSize is the size of a block device, or of a regular file.
func deviceSize(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Mode().IsRegular() {
		return st.Size(), nil
	}
	var size uint64
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&size))); errno != 0 {
		return 0, fmt.Errorf("size of %s: %w", f.Name(), errno)
	}
	return int64(size), nil
}
