package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/measure"
	"github.com/fsbench/fsbench/target/step"
	"golang.org/x/sys/unix"
)

func init() {
	register("fsync_latency", step.Recipe{Schema: 1, Iterate: fsyncLatency, Finish: removeWorkDir})
}

// overwriteRegion caps the file the overwrite pattern rewrites: count
// writes cycle over it, as a database rewrites its pages, so that a large
// count does not need count*write_size of space.
const overwriteRegion = 64 << 20

// fsyncLatency times count calls of write(write_size) followed by fsync or
// fdatasync on one file (seed 001 slides 7 and 9). append grows the file;
// overwrite first writes and syncs the file (untimed), then rewrites it in
// place. Each write+sync pair is timed on the monotonic clock and counted
// in a latencyHist.
func fsyncLatency(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	size, count := p.Int("write_size"), p.Int("count")
	call, pattern := p.String("call"), p.String("pattern")
	pcts := p.Floats("percentiles")
	if p.Err != nil {
		return nil, p.Err
	}
	if size < 1 || count < 1 {
		return nil, fmt.Errorf("write_size %d and count %d must be positive", size, count)
	}
	sync := unix.Fsync
	switch call {
	case "fsync":
	case "fdatasync":
		sync = unix.Fdatasync
	default:
		return nil, fmt.Errorf("call is %q, want fsync or fdatasync", call)
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	e.Quiesce()

	buf := make([]byte, size)
	rand.NewChaCha8([32]byte{'f', 's', 'y', 'n', 'c'}).Read(buf)
	f, err := openSyncFile(filepath.Join(dir, "fsync.dat"), pattern, size, count, buf)
	if err != nil {
		return nil, err
	}
	defer unix.Close(f.fd)

	var h measure.LatencyHist
	start := time.Now()
	for i := int64(0); i < count; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("after %d of %d calls: %w", i, count, err)
			}
		}
		t0 := time.Now()
		if err := f.write(i, buf); err != nil {
			return nil, fmt.Errorf("write %d: %w", i+1, err)
		}
		if err := sync(f.fd); err != nil {
			return nil, fmt.Errorf("%s %d: %w", call, i+1, err)
		}
		h.Add(time.Since(t0))
	}
	elapsed := time.Since(start)

	out := &step.Outcome{}
	us := func(ns float64) float64 { return ns / 1e3 }
	out.Metric("calls", float64(h.N), "")
	out.Metric("calls_per_s", float64(h.N)/elapsed.Seconds(), "/s")
	out.Metric("elapsed", elapsed.Seconds(), "s")
	out.Metric("mean", us(h.Mean()), "us")
	out.Metric("min", us(float64(h.Min)), "us")
	out.Metric("max", us(float64(h.Max)), "us")
	for _, pc := range pcts {
		out.Metric(percentileMetric(pc), us(h.Percentile(pc)), "us")
	}
	out.Attr("histogram", "log-linear, 128 buckets per power of two: percentiles within 0.4%")
	return out, nil
}

// percentileMetric names percentile p: "p50", "p99.9".
func percentileMetric(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// syncFile is the file fsync_latency writes.
type syncFile struct {
	fd     int
	blocks int64 // overwrite: the writes that fit the region; 0 for append
}

func (f *syncFile) write(i int64, buf []byte) error {
	if f.blocks == 0 {
		return linux.WriteAll(f.fd, buf)
	}
	off := (i % f.blocks) * int64(len(buf))
	for len(buf) > 0 {
		n, err := unix.Pwrite(f.fd, buf, off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}

// openSyncFile creates the file and syncs it and its filesystem, so that
// the first timed sync does not also commit the file's creation. For
// overwrite it writes the whole region first, so that the timed writes
// find allocated, written blocks (fallocate would leave unwritten extents,
// whose conversion is metadata work of its own).
func openSyncFile(path, pattern string, size, count int64, buf []byte) (*syncFile, error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	f := &syncFile{fd: fd}
	switch pattern {
	case "append":
	case "overwrite":
		f.blocks = max(1, min(count, overwriteRegion/size))
		for i := int64(0); i < f.blocks; i++ {
			if err := f.write(i, buf); err != nil {
				unix.Close(fd)
				return nil, fmt.Errorf("preparing %s: %w", path, err)
			}
		}
	default:
		unix.Close(fd)
		return nil, fmt.Errorf("pattern is %q, want append or overwrite", pattern)
	}
	if err := unix.Fsync(fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := linux.SyncFS(filepath.Dir(path)); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return f, nil
}
