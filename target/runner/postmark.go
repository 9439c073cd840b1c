package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"golang.org/x/sys/unix"
)

// PostMark 1.51 (J. Katcher, NetApp TR3022), as seed 004 ran it: the same
// generator (mt19937 with PostMark's seeding), the same draws in the same
// order, the same file table and names, so with the same settings it
// creates, reads, appends and deletes the same files as the real tool;
// TestPostmarkMatchesPostmark151 holds the counts Debian's postmark
// printed. What differs: timers are monotonic nanoseconds, not time()
// seconds with a floor of one; rates are not rounded to integers; and an
// I/O error stops the run (PostMark prints it and carries on, counting
// work it did not do).

// pmConfig is PostMark's configuration, its "set" commands.
type pmConfig struct {
	files, transactions   int // set number, set transactions
	minSize, maxSize      int // set size
	readBlock, writeBlock int // set read, set write
	subdirs               int // set subdirectories
	readBias, createBias  int // set bias read, set bias create
	buffered              bool
	seed                  uint32
}

// pmStats are PostMark's counters and timers.
type pmStats struct {
	created, read, appended, deleted int
	deletedAlone                     int // by the final deletion
	bytesRead, bytesWritten          int64
	// done is the number of transactions run; fewer than configured when
	// the files ran out.
	done int
	// The four phases: creation, transactions, deletion, and all three.
	creation, transactions, deletion, total time.Duration
}

// pmFS is what PostMark does to a file. Names are relative to the
// benchmark directory, with "/" before a subdirectory's files.
type pmFS interface {
	create(name string, size int) error
	read(name string, size int) error
	append(name string, size int) error
	remove(name string) error
	mkdir(name string) error
	rmdir(name string) error
}

type pmFile struct {
	name string
	size int // 0 marks a free slot
}

// postmark is one run.
type postmark struct {
	cfg       pmConfig
	rng       *mt19937
	fs        pmFS
	table     []pmFile
	allocated int
	st        pmStats
	ctxCheck  func() error
}

// runPostmark runs the benchmark on fs: create cfg.files files, run
// cfg.transactions transactions, delete what is left.
func runPostmark(ctx context.Context, cfg pmConfig, fs pmFS) (pmStats, error) {
	if cfg.files < 1 || cfg.transactions < 1 || cfg.minSize < 1 || cfg.maxSize < cfg.minSize ||
		cfg.readBlock < 1 || cfg.writeBlock < 1 {
		return pmStats{}, fmt.Errorf("postmark: invalid settings %+v", cfg)
	}
	pm := &postmark{cfg: cfg, rng: newMT19937(cfg.seed), fs: fs, table: make([]pmFile, 2*cfg.files)}
	n := 0
	pm.ctxCheck = func() error {
		if n++; n%256 == 0 {
			return ctx.Err()
		}
		return nil
	}
	err := pm.run()
	return pm.st, err
}

// pmSource draws PostMark's buffer of printable junk, 2*maxSize bytes, of
// which writes use the first maxSize. The draws must happen even when fs
// keeps no data: they move the generator.
func pmSource(rng *mt19937, maxSize int) []byte {
	src := make([]byte, maxSize)
	for i := 0; i < 2*maxSize; i++ {
		c := byte(32 + rng.rnd(95))
		if i < maxSize {
			src[i] = c
		}
	}
	return src
}

func (pm *postmark) run() error {
	if src, ok := pm.fs.(interface{ setSource([]byte) }); ok {
		src.setSource(pmSource(pm.rng, pm.cfg.maxSize))
	} else {
		pmSource(pm.rng, pm.cfg.maxSize)
	}
	if pm.cfg.subdirs > 1 {
		for i := 0; i < pm.cfg.subdirs; i++ {
			if err := pm.fs.mkdir("s" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	start := time.Now()
	for i := 0; i < pm.cfg.files; i++ {
		if err := pm.createFile(); err != nil {
			return err
		}
	}
	tStart := time.Now()
	if err := pm.runTransactions(); err != nil {
		return err
	}
	tEnd := time.Now()
	base := pm.st.deleted
	for i := range pm.table {
		if err := pm.deleteFile(i); err != nil {
			return err
		}
	}
	end := time.Now()
	pm.st.deletedAlone = pm.st.deleted - base
	pm.st.creation, pm.st.transactions = tStart.Sub(start), tEnd.Sub(tStart)
	pm.st.deletion, pm.st.total = end.Sub(tEnd), end.Sub(start)
	if pm.cfg.subdirs > 1 {
		for i := 0; i < pm.cfg.subdirs; i++ {
			if err := pm.fs.rmdir("s" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	if pm.st.done < pm.cfg.transactions {
		return fmt.Errorf("postmark: out of files after %d of %d transactions; for this workload, increase files or decrease transactions",
			pm.st.done, pm.cfg.transactions)
	}
	return nil
}

// runTransactions is PostMark's run_transactions: each transaction reads
// or appends a file in use, then creates or deletes one.
func (pm *postmark) runTransactions() error {
	for ; pm.st.done < pm.cfg.transactions; pm.st.done++ {
		if err := pm.ctxCheck(); err != nil {
			return err
		}
		if pm.st.created == pm.st.deleted {
			return nil // out of files
		}
		var err error
		if pm.rng.rnd(10) < pm.cfg.readBias {
			err = pm.readFile(pm.findUsed())
		} else {
			err = pm.appendFile(pm.findUsed())
		}
		if err != nil {
			return err
		}
		if pm.rng.rnd(10) < pm.cfg.createBias {
			err = pm.createFile()
		} else {
			err = pm.deleteFile(pm.findUsed())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// findFree is find_free_file: the next slot after the last one allocated,
// or else the first free one; -1 when the table is full.
func (pm *postmark) findFree() int {
	if pm.allocated < len(pm.table) && pm.table[pm.allocated].size == 0 {
		pm.allocated++
		return pm.allocated - 1
	}
	for i := range pm.table {
		if pm.table[i].size == 0 {
			pm.allocated = i + 1
			return i
		}
	}
	return -1
}

// findUsed is find_used_file: random slots until one is in use.
func (pm *postmark) findUsed() int {
	for {
		if i := pm.rng.rnd(len(pm.table)); pm.table[i].size != 0 {
			return i
		}
	}
}

func (pm *postmark) createFile() error {
	slot := pm.findFree()
	if slot < 0 {
		return nil
	}
	name := ""
	if pm.cfg.subdirs > 1 {
		name = "s" + strconv.Itoa(pm.rng.rnd(pm.cfg.subdirs)) + "/"
	}
	pm.st.created++
	name += strconv.Itoa(pm.st.created)
	size := pm.cfg.minSize + pm.rng.rnd(pm.cfg.maxSize-pm.cfg.minSize)
	pm.table[slot] = pmFile{name: name, size: size}
	if err := pm.fs.create(name, size); err != nil {
		return err
	}
	pm.st.bytesWritten += int64(size)
	return nil
}

func (pm *postmark) deleteFile(slot int) error {
	f := &pm.table[slot]
	if f.size == 0 {
		return nil
	}
	if err := pm.fs.remove(f.name); err != nil {
		return err
	}
	f.size = 0
	pm.st.deleted++
	return nil
}

func (pm *postmark) readFile(slot int) error {
	f := pm.table[slot]
	if err := pm.fs.read(f.name, f.size); err != nil {
		return err
	}
	pm.st.bytesRead += int64(f.size)
	pm.st.read++
	return nil
}

// appendFile adds between 1 byte and what brings the file to maxSize; a
// file already that large is left alone, without a draw.
func (pm *postmark) appendFile(slot int) error {
	f := &pm.table[slot]
	if f.size >= pm.cfg.maxSize {
		return nil
	}
	n := pm.rng.rnd(pm.cfg.maxSize-f.size) + 1
	if err := pm.fs.append(f.name, n); err != nil {
		return err
	}
	f.size += n
	pm.st.bytesWritten += int64(n)
	pm.st.appended++
	return nil
}

// report adds PostMark's verbose report as metrics. Rates per second of
// the whole run (total_time) or of the transactions alone, as PostMark
// divides them; its megabyte is 1024KiB, so the data rates are MiB/s.
func (st pmStats) report(out *Outcome, cfg pmConfig) {
	total, trans := st.total.Seconds(), st.transactions.Seconds()
	out.Metric("total_time", total, "s")
	out.Metric("transaction_time", trans, "s")
	out.Metric("transactions", float64(st.done), "")
	out.Metric("transactions_per_s", float64(st.done)/trans, "/s")
	out.Metric("files_created", float64(st.created), "")
	out.Metric("files_created_per_s", float64(st.created)/total, "/s")
	out.Metric("creation_alone_per_s", float64(cfg.files)/st.creation.Seconds(), "/s")
	out.Metric("creation_mixed", float64(st.created-cfg.files), "")
	out.Metric("creation_mixed_per_s", float64(st.created-cfg.files)/trans, "/s")
	out.Metric("files_read", float64(st.read), "")
	out.Metric("files_read_per_s", float64(st.read)/trans, "/s")
	out.Metric("files_appended", float64(st.appended), "")
	out.Metric("files_appended_per_s", float64(st.appended)/trans, "/s")
	out.Metric("files_deleted", float64(st.deleted), "")
	out.Metric("files_deleted_per_s", float64(st.deleted)/total, "/s")
	out.Metric("deletion_alone", float64(st.deletedAlone), "")
	out.Metric("deletion_alone_per_s", float64(st.deletedAlone)/st.deletion.Seconds(), "/s")
	out.Metric("deletion_mixed", float64(st.deleted-st.deletedAlone), "")
	out.Metric("deletion_mixed_per_s", float64(st.deleted-st.deletedAlone)/trans, "/s")
	out.Metric("bytes_read", float64(st.bytesRead), "B")
	out.Metric("bytes_written", float64(st.bytesWritten), "B")
	out.Metric("read_rate", float64(st.bytesRead)/(1<<20)/total, "MiB/s")
	out.Metric("write_rate", float64(st.bytesWritten)/(1<<20)/total, "MiB/s")
}

// pmDir does PostMark's file I/O in a directory, relative to its
// descriptor as PostMark's names are relative to its working directory.
// Buffered I/O imitates stdio: a buffer of the size glibc gives a FILE
// (st_blksize when below BUFSIZ, else BUFSIZ), filled by write calls of
// write_block bytes and flushed when full and at fclose.
type pmDir struct {
	dir        int
	buffered   bool
	readBlock  int
	writeBlock int
	src        []byte
	rbuf       []byte
	w          *bufio.Writer
	r          *bufio.Reader
}

// glibcBufsiz is BUFSIZ, the most stdio buffers a FILE.
const glibcBufsiz = 8192

func newPMDir(dir string, cfg pmConfig) (*pmDir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &pmDir{dir: fd, buffered: cfg.buffered, readBlock: cfg.readBlock, writeBlock: cfg.writeBlock,
		rbuf: make([]byte, cfg.readBlock)}, nil
}

func (d *pmDir) close() error       { return unix.Close(d.dir) }
func (d *pmDir) setSource(b []byte) { d.src = b }

// fdRW makes a descriptor an io.ReadWriter for bufio.
type fdRW int

func (f fdRW) Read(b []byte) (int, error) {
	n, err := linux.ReadFD(int(f), b)
	if n == 0 && err == nil && len(b) > 0 {
		return 0, io.EOF
	}
	return n, err
}

func (f fdRW) Write(b []byte) (int, error) {
	if err := linux.WriteAll(int(f), b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// stdioBufsize is the buffer glibc allocates for a FILE on fd: it asks
// fstat on the first I/O.
func stdioBufsize(fd int) int {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Blksize > 0 && st.Blksize < glibcBufsiz {
		return int(st.Blksize)
	}
	return glibcBufsiz
}

func (d *pmDir) open(name string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat(d.dir, name, flags|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, fmt.Errorf("postmark: opening %s: %w", name, err)
	}
	return fd, nil
}

// create is create_file: fopen "w" or open(O_RDWR|O_CREAT, 0644), then
// size bytes of the source.
func (d *pmDir) create(name string, size int) error {
	flags, mode := unix.O_RDWR|unix.O_CREAT, uint32(0o644)
	if d.buffered {
		flags, mode = unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, 0o666
	}
	fd, err := d.open(name, flags, mode)
	if err != nil {
		return err
	}
	return d.writeBlocks(fd, name, size)
}

// append is append_file: fopen "a" or open(O_RDWR|O_APPEND), then n bytes.
func (d *pmDir) append(name string, n int) error {
	flags := unix.O_RDWR | unix.O_APPEND
	if d.buffered {
		flags = unix.O_WRONLY | unix.O_CREAT | unix.O_APPEND
	}
	fd, err := d.open(name, flags, 0o644)
	if err != nil {
		return err
	}
	return d.writeBlocks(fd, name, n)
}

// writeBlocks is write_blocks and fwrite_blocks: whole write blocks from
// the start of the source, then the remainder, then close.
func (d *pmDir) writeBlocks(fd int, name string, size int) error {
	var w io.Writer = fdRW(fd)
	if d.buffered {
		if n := stdioBufsize(fd); d.w == nil || d.w.Size() != n {
			d.w = bufio.NewWriterSize(fdRW(fd), n)
		} else {
			d.w.Reset(fdRW(fd))
		}
		w = d.w
	}
	off, i := 0, size
	var err error
	for ; i >= d.writeBlock && err == nil; i, off = i-d.writeBlock, off+d.writeBlock {
		_, err = w.Write(d.src[off : off+d.writeBlock])
	}
	switch {
	case err != nil:
	case i > 0:
		_, err = w.Write(d.src[off : off+i])
	case !d.buffered:
		_, err = unix.Write(fd, d.src[off:off]) // PostMark's write(2) of a 0-byte remainder
	}
	if err == nil && d.buffered {
		err = d.w.Flush()
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("postmark: writing %s: %w", name, err)
	}
	return nil
}

// read is read_file: fopen "r" or open(O_RDONLY), read blocks of
// read_block, then the remainder.
func (d *pmDir) read(name string, size int) error {
	fd, err := d.open(name, unix.O_RDONLY, 0o644)
	if err != nil {
		return err
	}
	var r io.Reader = fdRW(fd)
	if d.buffered {
		if n := stdioBufsize(fd); d.r == nil || d.r.Size() != n {
			d.r = bufio.NewReaderSize(fdRW(fd), n)
		} else {
			d.r.Reset(fdRW(fd))
		}
		r = d.r
	}
	i := size
	for ; i >= d.readBlock && err == nil; i -= d.readBlock {
		err = readBlock(r, d.rbuf, d.buffered)
	}
	if err == nil && (i > 0 || !d.buffered) {
		err = readBlock(r, d.rbuf[:i], d.buffered)
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("postmark: reading %s: %w", name, err)
	}
	return nil
}

// readBlock is fread of a block (which fills it) or one read(2).
func readBlock(r io.Reader, b []byte, buffered bool) error {
	if buffered {
		_, err := io.ReadFull(r, b)
		return err
	}
	if len(b) == 0 {
		_, err := linux.ReadFD(int(r.(fdRW)), b)
		return err
	}
	_, err := r.Read(b)
	return err
}

func (d *pmDir) remove(name string) error {
	if err := unix.Unlinkat(d.dir, name, 0); err != nil {
		return fmt.Errorf("postmark: deleting %s: %w", name, err)
	}
	return nil
}

func (d *pmDir) mkdir(name string) error {
	if err := unix.Mkdirat(d.dir, name, 0o700); err != nil {
		return fmt.Errorf("postmark: creating %s: %w", name, err)
	}
	return nil
}

func (d *pmDir) rmdir(name string) error {
	if err := unix.Unlinkat(d.dir, name, unix.AT_REMOVEDIR); err != nil {
		return fmt.Errorf("postmark: removing %s: %w", name, err)
	}
	return nil
}
