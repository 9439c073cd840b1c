package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/measure"
	"golang.org/x/sys/unix"
)

// bonnie++ 1.03 (R. Coker), the version of seed 004's era, run as
// `bonnie++ -f -s size -r ram -n files`: the per-character tests are left
// out (-f), the others do the same system calls in the same order on files
// of the same names and sizes. Where it differs: the three seekers are
// goroutines on their own threads, not forked processes, and take their
// tickets from a counter, not a pipe; names and seeks come from
// random_seed, not srand(pid^time), so every filesystem gets the same
// ones; a test under half a second is reported with its rate (bonnie++
// prints +++++) and named in the attribute too_fast; an I/O error or a
// short read ends the run (1.03 loops on a read at end of file).

// bonnie++ 1.03's constants (bonnie.h).
const (
	// BonnieSeekers is SeekProcCount, the seekers that run at once: the
	// seek test's CPU share can reach this many times 100%.
	BonnieSeekers = bonSeekProcs

	bonChunk      = 8192    // DefaultChunkSize: the unit of every block I/O
	bonSeeks      = 8192    // Seeks
	bonSeekProcs  = 3       // SeekProcCount
	bonUpdateSeek = 10      // every tenth seek of a seeker rewrites its block
	bonIOFileSize = 1 << 30 // IOFileSize: the test file is cut into 1GiB files
	bonDirUnit    = 1024    // -n counts files in 1024s
	// MaxDataPerFile: a name's memory, to check -n against -r.
	bonMaxDataPerFile = 7 + 12 + 6 + 1 + 8
	bonMinTime        = 500 * time.Millisecond
)

// BonnieConfig is bonnie++'s command line.
type BonnieConfig struct {
	Size  int64 // -s, bytes (whole MiB)
	RAM   int64 // -r, bytes (whole MiB); 0 skips the checks
	Files int   // -n, in 1024s
	Seed  uint64
}

// check refuses what bonnie++ refuses: a file smaller than twice the RAM
// (the page cache would hold it), and more file names than fit half the
// RAM or 1GiB.
func (c BonnieConfig) check() error {
	ramMiB := c.RAM >> 20
	if c.Size < 1<<20 || c.Size%(1<<20) != 0 {
		return fmt.Errorf("bonnie_size %d is not a whole number of MiB", c.Size)
	}
	if c.RAM > 0 && c.Size < 2*c.RAM {
		return fmt.Errorf("bonnie_size %dMiB is less than twice bonnie_ram %dMiB; bonnie++ refuses: \"File size should be double RAM for good results\"",
			c.Size>>20, ramMiB)
	}
	if c.RAM > 0 && int64(c.Files)*bonMaxDataPerFile*2 > ramMiB<<10 {
		return fmt.Errorf("bonnie_files %d: bonnie++ refuses to test %dK files in %dMiB of RAM (\"the system is likely to start paging\")",
			c.Files, c.Files, ramMiB)
	}
	if c.Files*bonMaxDataPerFile > 1<<20 {
		return fmt.Errorf("bonnie_files %d: bonnie++ cannot keep the names of that many files", c.Files)
	}
	return nil
}

// bonTest is one bonnie++ measurement.
type bonTest struct {
	name    string // bonnie++'s CSV column
	elapsed time.Duration
	cpu     time.Duration
}

// Bonnie runs the tests in dir and reports bonnie++'s CSV columns.
func Bonnie(ctx context.Context, dir string, c BonnieConfig) (measure.Set, error) {
	var out measure.Set
	if err := c.check(); err != nil {
		return out, err
	}
	base := filepath.Join(dir, "Bonnie."+strconv.Itoa(os.Getpid()))
	f := newBonFile(base, c.Size)
	defer f.remove()
	var tests []bonTest
	for _, t := range []struct {
		name   string
		create bool
		run    func(context.Context) error
	}{{"put_block", true, f.writeBlocks}, {"rewrite", false, f.rewrite}, {"get_block", false, f.readBlocks}} {
		// bonnie++ opens the file before its timer starts and closes it
		// before it stops.
		err := f.open(t.create)
		var r bonTest
		if err == nil {
			r, err = timeCPU(func() error { return t.run(ctx) })
		}
		if err != nil {
			return out, fmt.Errorf("bonnie %s: %w", t.name, err)
		}
		r.name = t.name
		tests = append(tests, r)
	}
	seeks, err := f.seekTest(ctx, c.Seed)
	if err != nil {
		return out, fmt.Errorf("bonnie seeks: %w", err)
	}
	tests = append(tests, seeks)
	if err := f.remove(); err != nil {
		return out, err
	}
	if c.Files > 0 {
		ft, err := bonnieFileTests(ctx, base, c.Files*bonDirUnit, c.Seed)
		if err != nil {
			return out, err
		}
		tests = append(tests, ft...)
	}

	out.Metric("file_size", float64(c.Size), "B")
	var fast []string
	for _, t := range tests {
		secs := t.elapsed.Seconds()
		switch {
		case strings.HasSuffix(t.name, "_block") || t.name == "rewrite":
			out.Metric(t.name, float64(c.Size)/1024/secs, "K/s")
		case t.name == "seeks":
			out.Metric(t.name, bonSeeks/secs, "/s")
		default:
			out.Metric(t.name, float64(c.Files*bonDirUnit)/secs, "/s")
		}
		out.Metric(t.name+"_cpu", 100*t.cpu.Seconds()/secs, "%")
		if t.elapsed < bonMinTime {
			fast = append(fast, t.name)
		}
		if t.name == "seeks" {
			out.Metric("num_files", float64(c.Files), "x1024")
		}
	}
	out.Attr("per_char", "skipped (bonnie++ -f)")
	if len(fast) > 0 {
		out.Attr("too_fast", strings.Join(fast, ","))
	}
	return out, nil
}

// timeCPU runs fn and measures its wall time and CPU time, as bonnie++'s
// timer does for its process. fn runs on one locked thread, whose time is
// taken, so that the Go runtime's own threads (the garbage collector) do
// not count.
func timeCPU(fn func() error) (bonTest, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := processCPUTime(unix.RUSAGE_THREAD)
	t0 := time.Now()
	err := fn()
	return bonTest{elapsed: time.Since(t0), cpu: processCPUTime(unix.RUSAGE_THREAD) - c0}, err
}

// processCPUTime is user plus system time of the process or, with
// RUSAGE_THREAD, of the calling thread.
func processCPUTime(who int) time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bonFile is bonnie++'s test file: chunks of bonChunk bytes in files of
// At most 1GiB named base.0000, base.0001, ...
type bonFile struct {
	base    string
	fds     []int
	perFile int64 // chunks per file
	chunks  int64 // in all
	cur     int64 // the chunk the next read or write moves
}

func newBonFile(base string, size int64) *bonFile {
	return &bonFile{base: base, perFile: bonIOFileSize / bonChunk, chunks: size / bonChunk}
}

func (f *bonFile) nfiles() int { return int((f.chunks + f.perFile - 1) / f.perFile) }

func (f *bonFile) name(i int) string { return fmt.Sprintf("%s.%04d", f.base, i) }

// open is CFileOp::reopen: create from scratch (O_EXCL after an unlink)
// or open for update.
func (f *bonFile) open(create bool) error {
	f.close()
	f.cur = 0
	for i := 0; i < f.nfiles(); i++ {
		flags := unix.O_RDWR | unix.O_CLOEXEC
		if create {
			os.Remove(f.name(i))
			flags |= unix.O_CREAT | unix.O_EXCL
		}
		fd, err := unix.Open(f.name(i), flags, 0o600)
		if err != nil {
			return fmt.Errorf("opening %s: %w", f.name(i), err)
		}
		f.fds = append(f.fds, fd)
	}
	return nil
}

// Close closes the files without syncing them, as 1.03 does without -b.
func (f *bonFile) close() error {
	var err error
	for _, fd := range f.fds {
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
	}
	f.fds = nil
	return err
}

func (f *bonFile) remove() error {
	f.close()
	var err error
	for i := 0; i < f.nfiles(); i++ {
		if rerr := os.Remove(f.name(i)); rerr != nil && !os.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	return err
}

func (f *bonFile) fd() int { return f.fds[f.cur/f.perFile] }

// seek positions the file holding chunk c at it.
func (f *bonFile) seek(c int64) error {
	f.cur = c
	_, err := unix.Seek(f.fd(), (c%f.perFile)*bonChunk, 0)
	return err
}

func (f *bonFile) writeChunk(buf []byte) error {
	if err := linux.WriteAll(f.fd(), buf); err != nil {
		return err
	}
	f.cur++
	return nil
}

// readChunk reads a whole chunk; bonnie++ repeats short reads.
func (f *bonFile) readChunk(buf []byte) error {
	for n := 0; n < len(buf); {
		m, err := linux.ReadFD(f.fd(), buf[n:])
		if err != nil {
			return err
		}
		if m == 0 {
			return fmt.Errorf("end of file in chunk %d", f.cur)
		}
		n += m
	}
	f.cur++
	return nil
}

// writeBlocks is "Writing intelligently" on the newly created file: a
// zeroed chunk with one byte incremented before each write, then close.
func (f *bonFile) writeBlocks(ctx context.Context) error {
	buf := make([]byte, bonChunk)
	idx := 0
	for i := int64(0); i < f.chunks; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		buf[idx]++
		idx = (idx + 1) % bonChunk
		if err := f.writeChunk(buf); err != nil {
			return err
		}
	}
	return f.close()
}

// rewrite is "Rewriting" on the opened file: read each chunk, dirty a
// byte, seek back and write it, then close.
func (f *bonFile) rewrite(ctx context.Context) error {
	buf := make([]byte, bonChunk)
	idx := 0
	for i := int64(0); i < f.chunks; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := f.readChunk(buf); err != nil {
			return err
		}
		idx %= bonChunk
		buf[idx]++
		idx++
		if err := f.seek(i); err != nil {
			return err
		}
		if err := f.writeChunk(buf); err != nil {
			return err
		}
	}
	return f.close()
}

// readBlocks is "Reading intelligently" of the opened file, then close.
func (f *bonFile) readBlocks(ctx context.Context) error {
	buf := make([]byte, bonChunk)
	for i := int64(0); i < f.chunks; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := f.readChunk(buf); err != nil {
			return err
		}
	}
	return f.close()
}

// seekTest is bonnie++'s random seeks: bonSeekProcs seekers share
// bonSeeks tickets; each opens the file, and per ticket seeks to a random
// chunk and reads it, and every bonUpdateSeek-th time dirties a byte,
// seeks back and writes it. The time runs from the first seeker's start to
// the last one's end; the CPU time is the seekers' sum. Forked from one
// process, bonnie++'s seekers inherit one rand() state and draw the same
// chunks; these get generators with the same seed for the same reason.
func (f *bonFile) seekTest(ctx context.Context, seed uint64) (bonTest, error) {
	var (
		tickets    atomic.Int64
		wg         sync.WaitGroup
		mu         sync.Mutex
		first, end time.Time
		cpu        time.Duration
		errs       = make([]error, bonSeekProcs)
		startGun   = make(chan struct{})
	)
	tickets.Store(bonSeeks)
	for w := 0; w < bonSeekProcs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s := &bonFile{base: f.base, perFile: f.perFile, chunks: f.chunks}
			if errs[w] = s.open(false); errs[w] != nil {
				return
			}
			defer s.close()
			rng := rand.New(rand.NewPCG(seed, 's'))
			<-startGun
			c0, t0 := processCPUTime(unix.RUSAGE_THREAD), time.Now()
			errs[w] = s.seeker(ctx, rng, &tickets)
			c1, t1 := processCPUTime(unix.RUSAGE_THREAD), time.Now()
			mu.Lock()
			if first.IsZero() || t0.Before(first) {
				first = t0
			}
			if t1.After(end) {
				end = t1
			}
			cpu += c1 - c0
			mu.Unlock()
		}()
	}
	close(startGun)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return bonTest{}, err
		}
	}
	return bonTest{name: "seeks", elapsed: end.Sub(first), cpu: cpu}, nil
}

func (s *bonFile) seeker(ctx context.Context, rng *rand.Rand, tickets *atomic.Int64) error {
	buf := make([]byte, bonChunk)
	for n := 0; tickets.Add(-1) >= 0; n++ {
		if n%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		c := rng.Int64N(s.chunks)
		if err := s.seek(c); err != nil {
			return err
		}
		if err := s.readChunk(buf); err != nil {
			return err
		}
		if n%bonUpdateSeek != 0 {
			continue
		}
		buf[rng.IntN(bonChunk)]--
		if err := s.seek(c); err != nil {
			return err
		}
		if err := s.writeChunk(buf); err != nil {
			return err
		}
	}
	return s.close()
}
