package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"golang.org/x/sys/unix"
)

func init() {
	register("dd_sweep", step.Recipe{Schema: 1, Iterate: ddSweep, Finish: removeWorkDir})
}

// ddSweep is one pass of the seed 002 scripts: drop the page cache, dd
// total bytes in blocks of bs from source to a new file (conv=fsync when
// fsync), and with read drop the cache again and dd the file back to
// /dev/null. It copies as GNU dd does, one read(2) and one write(2) per
// block, and times what dd's own statistics time: from after the opens to
// after the close of the output, including the fsync.
func ddSweep(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	total, bs := p.Int("total"), p.Int("bs")
	drop, readBack, fsync := p.Bool("drop_caches"), p.Bool("read"), p.Bool("fsync")
	source := p.String("source")
	if p.Err != nil {
		return nil, p.Err
	}
	if bs < 1 || total < bs || total%bs != 0 {
		return nil, fmt.Errorf("total %d is not a positive multiple of bs %d", total, bs)
	}
	if source != "/dev/zero" && source != "/dev/urandom" {
		return nil, fmt.Errorf("source is %q, want /dev/zero or /dev/urandom", source)
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	e.Quiesce()
	file := filepath.Join(dir, "dd.out")

	out := &step.Outcome{}
	if drop {
		if err := dropPageCache(); err != nil {
			return nil, err
		}
	}
	w, err := ddCopy(ctx, ddJob{in: source, out: file, bs: bs, count: total / bs, fsync: fsync, fullBlock: true})
	if err != nil {
		return nil, fmt.Errorf("dd if=%s of=%s bs=%d count=%d: %w", source, file, bs, total/bs, err)
	}
	w.report(out, "write")
	if !readBack {
		return out, nil
	}
	if drop {
		if err := dropPageCache(); err != nil {
			return nil, err
		}
	}
	r, err := ddCopy(ctx, ddJob{in: file, out: os.DevNull, bs: bs, count: -1})
	if err != nil {
		return nil, fmt.Errorf("dd if=%s of=/dev/null bs=%d: %w", file, bs, err)
	}
	if r.bytes != w.bytes {
		return nil, fmt.Errorf("read back %d bytes of the %d written", r.bytes, w.bytes)
	}
	r.report(out, "read")
	return out, nil
}

// dropPageCache syncs and drops the page cache only, as the seed's
// scripts do (echo 1 > /proc/sys/vm/drop_caches); dentries and inodes stay.
func dropPageCache() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("1\n"), 0); err != nil {
		return fmt.Errorf("dropping the page cache: %w", err)
	}
	return nil
}

// ddJob is one dd command line.
type ddJob struct {
	in, out string
	bs      int64
	count   int64 // blocks to read; -1 reads to the end
	fsync   bool  // conv=fsync
	// fullBlock refills a block that a read returned short (dd
	// iflag=fullblock). /dev/urandom returns short reads when a signal
	// arrives, and the Go runtime signals its threads to preempt them:
	// without it a pass would write less than total.
	fullBlock bool
}

// ddStats is what dd reports.
type ddStats struct {
	bytes               int64
	elapsed             time.Duration
	fullIn, partialIn   int64 // records in: whole and partial blocks read
	fullOut, partialOut int64
	shortReads          int64 // reads that fullBlock completed
}

func ddCopy(ctx context.Context, j ddJob) (ddStats, error) {
	var st ddStats
	ifd, err := unix.Open(j.in, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return st, fmt.Errorf("opening %s: %w", j.in, err)
	}
	defer unix.Close(ifd)
	// dd opens its output O_CREAT|O_TRUNC unless conv=notrunc.
	ofd, err := unix.Open(j.out, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o666)
	if err != nil {
		return st, fmt.Errorf("opening %s: %w", j.out, err)
	}
	buf := make([]byte, j.bs)

	start := time.Now()
	for j.count < 0 || st.fullIn+st.partialIn < j.count {
		if (st.fullIn+st.partialIn)%64 == 0 && ctx.Err() != nil {
			unix.Close(ofd)
			return st, ctx.Err()
		}
		n, err := ddRead(ifd, buf, j.fullBlock, &st.shortReads)
		if err != nil {
			unix.Close(ofd)
			return st, fmt.Errorf("reading %s: %w", j.in, err)
		}
		if n == 0 {
			break
		}
		if int64(n) == j.bs {
			st.fullIn++
		} else {
			st.partialIn++
		}
		if err := linux.WriteAll(ofd, buf[:n]); err != nil {
			unix.Close(ofd)
			return st, fmt.Errorf("writing %s: %w", j.out, err)
		}
		if int64(n) == j.bs {
			st.fullOut++
		} else {
			st.partialOut++
		}
		st.bytes += int64(n)
	}
	if j.fsync {
		if err := unix.Fsync(ofd); err != nil {
			unix.Close(ofd)
			return st, fmt.Errorf("fsync %s: %w", j.out, err)
		}
	}
	if err := unix.Close(ofd); err != nil {
		return st, fmt.Errorf("closing %s: %w", j.out, err)
	}
	st.elapsed = time.Since(start)
	return st, nil
}

// ddRead is one read(2) of a block, or with full as many as fill it.
func ddRead(fd int, buf []byte, full bool, short *int64) (int, error) {
	n, err := linux.ReadFD(fd, buf)
	if err != nil || !full {
		return n, err
	}
	for n > 0 && n < len(buf) {
		*short++
		m, err := linux.ReadFD(fd, buf[n:])
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// report adds the statistics as dd prints them: bytes, seconds and the
// rate in decimal megabytes a second ("48 MiB copied, 0.3 s, 168 MB/s").
func (st ddStats) report(out *step.Outcome, dir string) {
	secs := st.elapsed.Seconds()
	out.Metric(dir+"_bytes", float64(st.bytes), "B")
	out.Metric(dir+"_time", secs, "s")
	out.Metric(dir+"_rate", float64(st.bytes)/secs/1e6, "MB/s")
	out.Attr(dir+"_records_in", strconv.FormatInt(st.fullIn, 10)+"+"+strconv.FormatInt(st.partialIn, 10))
	out.Attr(dir+"_records_out", strconv.FormatInt(st.fullOut, 10)+"+"+strconv.FormatInt(st.partialOut, 10))
	if st.shortReads > 0 {
		out.Attr(dir+"_short_reads", strconv.FormatInt(st.shortReads, 10))
	}
}
