package workload

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/measure"
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

// PostmarkConfig is PostMark's configuration, its "set" commands.
type PostmarkConfig struct {
	Files, Transactions   int // set number, set transactions
	MinSize, MaxSize      int // set size
	ReadBlock, WriteBlock int // set read, set write
	Subdirs               int // set subdirectories
	ReadBias, CreateBias  int // set bias read, set bias create
	Buffered              bool
	Seed                  uint32
}

// PostmarkStats are PostMark's counters and timers.
type PostmarkStats struct {
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
	cfg       PostmarkConfig
	rng       *MT19937
	fs        pmFS
	table     []pmFile
	allocated int
	st        PostmarkStats
	ctxCheck  func() error
}

// Postmark runs the benchmark on fs: create cfg.files files, run
// cfg.transactions transactions, delete what is left.
func Postmark(ctx context.Context, cfg PostmarkConfig, fs pmFS) (PostmarkStats, error) {
	if cfg.Files < 1 || cfg.Transactions < 1 || cfg.MinSize < 1 || cfg.MaxSize < cfg.MinSize ||
		cfg.ReadBlock < 1 || cfg.WriteBlock < 1 {
		return PostmarkStats{}, fmt.Errorf("postmark: invalid settings %+v", cfg)
	}
	pm := &postmark{cfg: cfg, rng: NewMT19937(cfg.Seed), fs: fs, table: make([]pmFile, 2*cfg.Files)}
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
func pmSource(rng *MT19937, maxSize int) []byte {
	src := make([]byte, maxSize)
	for i := 0; i < 2*maxSize; i++ {
		c := byte(32 + rng.Rnd(95))
		if i < maxSize {
			src[i] = c
		}
	}
	return src
}

func (pm *postmark) run() error {
	if src, ok := pm.fs.(interface{ setSource([]byte) }); ok {
		src.setSource(pmSource(pm.rng, pm.cfg.MaxSize))
	} else {
		pmSource(pm.rng, pm.cfg.MaxSize)
	}
	if pm.cfg.Subdirs > 1 {
		for i := 0; i < pm.cfg.Subdirs; i++ {
			if err := pm.fs.mkdir("s" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	start := time.Now()
	for i := 0; i < pm.cfg.Files; i++ {
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
	if pm.cfg.Subdirs > 1 {
		for i := 0; i < pm.cfg.Subdirs; i++ {
			if err := pm.fs.rmdir("s" + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	if pm.st.done < pm.cfg.Transactions {
		return fmt.Errorf("postmark: out of files after %d of %d transactions; for this workload, increase files or decrease transactions",
			pm.st.done, pm.cfg.Transactions)
	}
	return nil
}

// runTransactions is PostMark's run_transactions: each transaction reads
// or appends a file in use, then creates or deletes one.
func (pm *postmark) runTransactions() error {
	for ; pm.st.done < pm.cfg.Transactions; pm.st.done++ {
		if err := pm.ctxCheck(); err != nil {
			return err
		}
		if pm.st.created == pm.st.deleted {
			return nil // out of files
		}
		var err error
		if pm.rng.Rnd(10) < pm.cfg.ReadBias {
			err = pm.readFile(pm.findUsed())
		} else {
			err = pm.appendFile(pm.findUsed())
		}
		if err != nil {
			return err
		}
		if pm.rng.Rnd(10) < pm.cfg.CreateBias {
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
		if i := pm.rng.Rnd(len(pm.table)); pm.table[i].size != 0 {
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
	if pm.cfg.Subdirs > 1 {
		name = "s" + strconv.Itoa(pm.rng.Rnd(pm.cfg.Subdirs)) + "/"
	}
	pm.st.created++
	name += strconv.Itoa(pm.st.created)
	size := pm.cfg.MinSize + pm.rng.Rnd(pm.cfg.MaxSize-pm.cfg.MinSize)
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
	if f.size >= pm.cfg.MaxSize {
		return nil
	}
	n := pm.rng.Rnd(pm.cfg.MaxSize-f.size) + 1
	if err := pm.fs.append(f.name, n); err != nil {
		return err
	}
	f.size += n
	pm.st.bytesWritten += int64(n)
	pm.st.appended++
	return nil
}

// Measures returns PostMark's verbose report as metrics. Rates per second of
// the whole run (total_time) or of the transactions alone, as PostMark
// divides them; its megabyte is 1024KiB, so the data rates are MiB/s.
func (st PostmarkStats) Measures(cfg PostmarkConfig) measure.Set {
	var out measure.Set
	total, trans := st.total.Seconds(), st.transactions.Seconds()
	out.Metric("total_time", total, "s")
	out.Metric("transaction_time", trans, "s")
	out.Metric("transactions", float64(st.done), "")
	out.Metric("transactions_per_s", float64(st.done)/trans, "/s")
	out.Metric("files_created", float64(st.created), "")
	out.Metric("files_created_per_s", float64(st.created)/total, "/s")
	out.Metric("creation_alone_per_s", float64(cfg.Files)/st.creation.Seconds(), "/s")
	out.Metric("creation_mixed", float64(st.created-cfg.Files), "")
	out.Metric("creation_mixed_per_s", float64(st.created-cfg.Files)/trans, "/s")
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
	return out
}

// PostmarkDir does PostMark's file I/O in a directory, relative to its
// descriptor as PostMark's names are relative to its working directory.
// Buffered I/O imitates stdio: a buffer of the size glibc gives a FILE
// (st_blksize when below BUFSIZ, else BUFSIZ), filled by write calls of
// write_block bytes and flushed when full and at fclose.
type PostmarkDir struct {
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

// NewPostmarkDir opens dir for PostMark runs with cfg's I/O sizes.
func NewPostmarkDir(dir string, cfg PostmarkConfig) (*PostmarkDir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &PostmarkDir{dir: fd, buffered: cfg.Buffered, readBlock: cfg.ReadBlock, writeBlock: cfg.WriteBlock,
		rbuf: make([]byte, cfg.ReadBlock)}, nil
}

// Close closes the directory.
func (d *PostmarkDir) Close() error       { return unix.Close(d.dir) }
func (d *PostmarkDir) setSource(b []byte) { d.src = b }

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

func (d *PostmarkDir) open(name string, flags int, mode uint32) (int, error) {
	fd, err := unix.Openat(d.dir, name, flags|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, fmt.Errorf("postmark: opening %s: %w", name, err)
	}
	return fd, nil
}

// create is create_file: fopen "w" or open(O_RDWR|O_CREAT, 0644), then
// Size bytes of the source.
func (d *PostmarkDir) create(name string, size int) error {
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
func (d *PostmarkDir) append(name string, n int) error {
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
func (d *PostmarkDir) writeBlocks(fd int, name string, size int) error {
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
func (d *PostmarkDir) read(name string, size int) error {
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

// ReadBlock is fread of a block (which fills it) or one read(2).
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

func (d *PostmarkDir) remove(name string) error {
	if err := unix.Unlinkat(d.dir, name, 0); err != nil {
		return fmt.Errorf("postmark: deleting %s: %w", name, err)
	}
	return nil
}

func (d *PostmarkDir) mkdir(name string) error {
	if err := unix.Mkdirat(d.dir, name, 0o700); err != nil {
		return fmt.Errorf("postmark: creating %s: %w", name, err)
	}
	return nil
}

func (d *PostmarkDir) rmdir(name string) error {
	if err := unix.Unlinkat(d.dir, name, unix.AT_REMOVEDIR); err != nil {
		return fmt.Errorf("postmark: removing %s: %w", name, err)
	}
	return nil
}
