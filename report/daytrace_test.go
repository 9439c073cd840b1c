package report

import (
	"math/rand/v2"

	bt "github.com/fsbench/fsbench/wire/blocktrace"
)

// A synthetic day of an embedded device's writes, as a partition's block
// trace: what the endurance recipe records, shaped after what ext4 and
// f2fs send down for a logger, a SQLite database, config rewrites and a
// software update. It feeds the report's lifetime fixtures and the
// benchmark of the flash model; it is no measurement.

// dayShape is the workload: the span it covers and how often each
// stream writes.
type dayShape struct {
	seconds    int    // span of the device's life
	fsyncEvery int    // seconds between the logger's fsyncs
	logLine    int    // bytes of log a second
	txEvery    int    // seconds between SQLite transactions; 0: none
	cfgEvery   int    // seconds between config rewrites; 0: none
	cfgBlocks  int    // 4 KiB blocks of the config file
	update     int    // 4 KiB blocks of the day's update share, written at mid-span
	sectors    uint64 // the partition
	seed       uint64
}

// blk is a 4 KiB filesystem block, in 512-byte sectors.
const blk = 8

// dayWriter lays the streams out on a partition the way one filesystem
// would: in place with a journal (ext4), or appended at a log head (f2fs).
type dayWriter struct {
	sh  dayShape
	rng *rand.Rand
	out []bt.Record
	// ext4: the journal ring and the areas of each stream
	journal, journalLen, jpos uint64
	logArea, logPos           uint64
	walArea, walPos, dbArea   uint64
	cfgArea, cfgPos           uint64
	updArea                   uint64
	// f2fs: the log head, and the segment discarded behind it
	head, segStart uint64
	logged         bool
}

func newDayWriter(sh dayShape, logged bool) *dayWriter {
	part := sh.sectors / blk // blocks
	w := &dayWriter{sh: sh, rng: rand.New(rand.NewPCG(sh.seed, 11)), logged: logged}
	w.journal, w.journalLen = part/2, 4096 // a 16 MiB journal in the middle
	w.logArea = part / 16
	w.walArea, w.dbArea = part/8, part/8+2048
	w.cfgArea = part / 4
	w.updArea = part * 5 / 8
	w.head = part / 32
	w.segStart = w.head
	return w
}

func (w *dayWriter) write(block uint64, n int, flags ...bool) {
	r := bt.Record{Op: bt.Write, Sector: block * blk, Sectors: uint32(n * blk)}
	if len(flags) == 2 {
		r.PreFlush, r.FUA = flags[0], flags[1]
	}
	w.out = append(w.out, r)
}

// commit is a jbd2 transaction: a descriptor and n metadata blocks, then
// the commit block with a preflush and FUA.
func (w *dayWriter) commit(n int) {
	if w.jpos+uint64(n)+2 > w.journalLen {
		w.jpos = 0
	}
	w.write(w.journal+w.jpos, n+1)
	w.write(w.journal+w.jpos+uint64(n)+1, 1, true, true)
	w.jpos += uint64(n) + 2
}

// append writes n blocks at f2fs's log head and, every 2 MiB segment,
// discards the segment the cleaner emptied a while ago.
func (w *dayWriter) append(n int) {
	part := w.sh.sectors / blk
	if w.head+uint64(n) > part-512 {
		w.head = part / 32
	}
	w.write(w.head, n)
	w.head += uint64(n)
	if w.head-w.segStart >= 512 {
		old := w.segStart + part/4
		if old+512 < part {
			w.out = append(w.out, bt.Record{Op: bt.Discard, Sector: old * blk, Sectors: 512 * blk})
		}
		w.segStart = w.head
	}
}

// fsync makes n data blocks and their metadata durable.
func (w *dayWriter) fsync(data func(), meta int) {
	data()
	if w.logged {
		w.append(1) // the node block
		w.out = append(w.out, bt.Record{Op: bt.Flush})
		return
	}
	w.commit(meta)
}

// trace is the span's records, in the order of the device's clock.
func (w *dayWriter) trace() []bt.Record {
	sh := w.sh
	pending := 0 // bytes of log since the last fsync
	for t := 1; t <= sh.seconds; t++ {
		pending += sh.logLine
		if t%sh.fsyncEvery == 0 {
			n := max(1, (pending+4095)/4096)
			pending = 0
			w.fsync(func() {
				if w.logged {
					w.append(n)
					return
				}
				// The log's last block is written again until full.
				w.write(w.logArea+w.logPos, n)
				w.logPos = (w.logPos + uint64(n) - 1) % 8192
			}, 2)
		}
		if sh.txEvery > 0 && t%sh.txEvery == 0 {
			w.fsync(func() {
				if w.logged {
					w.append(1)
					return
				}
				w.write(w.walArea+w.walPos, 1)
				w.walPos = (w.walPos + 1) % 1024
			}, 1)
			if w.walPos == 0 && !w.logged { // a checkpoint: pages of the database in place
				for range 24 {
					w.write(w.dbArea+w.rng.Uint64N(4096), 1)
				}
				w.commit(3)
			}
		}
		if sh.cfgEvery > 0 && t%sh.cfgEvery == 0 {
			w.fsync(func() {
				if w.logged {
					w.append(sh.cfgBlocks)
					return
				}
				w.write(w.cfgArea+w.cfgPos, sh.cfgBlocks)
				w.cfgPos = (w.cfgPos + uint64(sh.cfgBlocks)) % 2048
			}, 3)
			w.commit(2) // the rename, and the directory's fsync
		}
		if sh.update > 0 && t == sh.seconds/2 {
			for done := 0; done < sh.update; done += 128 {
				n := min(128, sh.update-done)
				if w.logged {
					w.append(n)
				} else {
					w.write(w.updArea+uint64(done), n)
				}
			}
			w.fsync(func() {}, 4)
		}
	}
	return w.out
}

// dayTrace is the span's trace on an in-place (ext4-like) or a
// log-structured (f2fs-like) filesystem.
func dayTrace(sh dayShape, logged bool) []bt.Record {
	return newDayWriter(sh, logged).trace()
}
