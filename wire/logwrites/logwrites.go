// Package logwrites reads the write log of the kernel's dm-log-writes target
// (Documentation/admin-guide/device-mapper/log-writes.rst) and replays it
// onto a device, so that every state a power cut could leave the device in
// can be rebuilt, one after the other. The runner replays on the board; the
// host replays from a disk image to export one state for inspection.
//
// The format, as drivers/md/dm-log-writes.c writes it: a super block at
// byte 0 (magic, version, the number of entries, the device's logical
// sector size), then, from the second sector on, one entry after another:
// a header sector (the written sector, the number of sectors, flags, the
// length of a mark's text, which follows the header in the same sector),
// then the written data, nr_sectors sectors of it. Sectors and lengths
// count in the device's sector size. A discard, a flush without data and
// a mark have no data. The log says nothing of integrity: Open checks
// everything the format allows it to, and a caller that must trust the
// log later keeps its Digest.
//
// It is part of the wire: it links only the standard library.
package logwrites

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"strings"
)

// The format's constants.
const (
	Magic   = 0x6a736677736872
	Version = 1

	FlagFlush    = 1 << 0
	FlagFUA      = 1 << 1
	FlagDiscard  = 1 << 2
	FlagMark     = 1 << 3
	FlagMetadata = 1 << 4
	knownFlags   = FlagFlush | FlagFUA | FlagDiscard | FlagMark | FlagMetadata

	headerSize = 32 // sizeof(struct log_write_entry)
	superSize  = 28 // sizeof(struct log_write_super) without padding

	// EndMark is the mark the target logs when its table is torn down,
	// after every write it holds: a log without it was cut short.
	EndMark = "dm-log-writes-end"
	// FSMark is the mark fsbench's runner sets once the filesystem is
	// made: the states before it are mkfs's, not a workload's.
	FSMark = "fsb:mkfs"
)

// ErrTruncated reports a log that ends before the target's end mark: the
// device was not taken down cleanly, or the log device ran out of space.
var ErrTruncated = errors.New("the write log ends before dm-log-writes' end mark (cut short, or the log device ran out of space)")

// Entry is one record of the log.
type Entry struct {
	Index   int    // from 0, in log order
	Sector  uint64 // first sector written, in the log's sector size
	Sectors uint64 // sectors written or discarded
	Flags   uint64
	Mark    string // the text of a mark
	// Offset is the byte offset of the entry's data in the log (after its
	// header sector); meaningful when the entry has data.
	Offset int64
}

func (e Entry) Flush() bool    { return e.Flags&FlagFlush != 0 }
func (e Entry) FUA() bool      { return e.Flags&FlagFUA != 0 }
func (e Entry) Discard() bool  { return e.Flags&FlagDiscard != 0 }
func (e Entry) IsMark() bool   { return e.Flags&FlagMark != 0 }
func (e Entry) HasData() bool  { return !e.IsMark() && !e.Discard() && e.Sectors > 0 }
func (e Entry) Metadata() bool { return e.Flags&FlagMetadata != 0 }

// String describes the entry as a person reads a log.
func (e Entry) String() string {
	var kind []string
	switch {
	case e.IsMark():
		return fmt.Sprintf("#%d mark %q", e.Index, e.Mark)
	case e.Discard():
		kind = append(kind, "discard")
	case e.Sectors > 0:
		kind = append(kind, "write")
	}
	if e.Flush() {
		kind = append(kind, "flush")
	}
	if e.FUA() {
		kind = append(kind, "fua")
	}
	if e.Metadata() {
		kind = append(kind, "meta")
	}
	s := fmt.Sprintf("#%d %s", e.Index, strings.Join(kind, "+"))
	if e.Sectors > 0 {
		s += fmt.Sprintf(" sectors %d+%d", e.Sector, e.Sectors)
	}
	return s
}

// Log is a parsed, checked write log.
type Log struct {
	SectorSize int64
	Entries    []Entry
	// End is the byte just past the last entry: the part of the log
	// device the log occupies.
	End int64
	r   io.ReaderAt
}

// Open reads and checks the log on r, a log device of logSize bytes, for
// a device of devSize bytes (0: unknown). Every entry must lie inside the
// log, touch only the device, carry known flags and a well-formed header;
// the last must be the end mark. A log that fails is never returned.
func Open(r io.ReaderAt, logSize, devSize int64) (*Log, error) {
	var sb [superSize]byte
	if _, err := r.ReadAt(sb[:], 0); err != nil {
		return nil, fmt.Errorf("reading the write log's super block: %w", err)
	}
	le := binary.LittleEndian
	if m := le.Uint64(sb[0:]); m != Magic {
		return nil, fmt.Errorf("not a dm-log-writes log: magic %#x, want %#x", m, uint64(Magic))
	}
	if v := le.Uint64(sb[8:]); v != Version {
		return nil, fmt.Errorf("write log version %d; this reader knows version %d", v, Version)
	}
	n := le.Uint64(sb[16:])
	ss := int64(le.Uint32(sb[24:]))
	if ss < 512 || ss > 64<<10 || ss&(ss-1) != 0 {
		return nil, fmt.Errorf("write log sector size %d is not a power of two from 512 to 64KiB", ss)
	}
	if n == 0 {
		return nil, fmt.Errorf("the write log has no entries: %w", ErrTruncated)
	}
	// Each entry takes at least one sector of the log.
	if logSize > 0 && n > uint64(logSize/ss) {
		return nil, fmt.Errorf("the write log claims %d entries, more than its %d bytes can hold", n, logSize)
	}
	l := &Log{SectorSize: ss, r: r, Entries: make([]Entry, 0, min(n, 1<<20))}
	hdr := make([]byte, ss)
	off := ss
	for i := uint64(0); i < n; i++ {
		if logSize > 0 && off+ss > logSize {
			return nil, fmt.Errorf("write log entry %d starts at byte %d, past the log's end (%d bytes)", i, off, logSize)
		}
		if _, err := r.ReadAt(hdr, off); err != nil {
			return nil, fmt.Errorf("reading write log entry %d at byte %d: %w", i, off, err)
		}
		e := Entry{Index: int(i), Sector: le.Uint64(hdr[0:]), Sectors: le.Uint64(hdr[8:]), Flags: le.Uint64(hdr[16:])}
		dataLen := le.Uint64(hdr[24:])
		if e.Flags&^knownFlags != 0 {
			return nil, fmt.Errorf("write log entry %d at byte %d: unknown flags %#x", i, off, e.Flags)
		}
		rest := hdr[headerSize:]
		switch {
		case e.IsMark():
			if dataLen == 0 || dataLen >= uint64(ss-headerSize) || e.Sectors != 0 || e.Flags != FlagMark {
				return nil, fmt.Errorf("write log entry %d at byte %d: malformed mark", i, off)
			}
			e.Mark = string(rest[:dataLen])
			if strings.IndexByte(e.Mark, 0) >= 0 {
				return nil, fmt.Errorf("write log entry %d at byte %d: mark text holds a NUL byte", i, off)
			}
			rest = rest[dataLen:]
		case dataLen != 0:
			// Inline data belongs to DAX writes, which the runner never
			// logs; it has no place on a block device's log.
			return nil, fmt.Errorf("write log entry %d at byte %d: inline data (%d bytes), which this reader does not replay", i, off, dataLen)
		case e.Sectors == 0 && e.Flags&(FlagFlush|FlagFUA) == 0:
			return nil, fmt.Errorf("write log entry %d at byte %d: an empty entry that is neither a flush nor a mark", i, off)
		}
		for _, b := range rest {
			if b != 0 {
				return nil, fmt.Errorf("write log entry %d at byte %d: header padding is not zero (corrupt log)", i, off)
			}
		}
		if e.Sectors > 0 {
			if e.Sector > uint64(1)<<56 || e.Sectors > uint64(1)<<40 {
				return nil, fmt.Errorf("write log entry %d at byte %d: sector range %d+%d is impossible", i, off, e.Sector, e.Sectors)
			}
			if devSize > 0 && int64(e.Sector+e.Sectors)*ss > devSize {
				return nil, fmt.Errorf("write log entry %d at byte %d: sectors %d+%d lie past the device's end (%d bytes)", i, off, e.Sector, e.Sectors, devSize)
			}
		}
		off += ss
		e.Offset = off
		if e.HasData() {
			off += int64(e.Sectors) * ss
			if logSize > 0 && off > logSize {
				return nil, fmt.Errorf("write log entry %d: its data runs past the log's end (%d bytes)", i, logSize)
			}
		}
		l.Entries = append(l.Entries, e)
	}
	l.End = off
	if last := l.Entries[len(l.Entries)-1]; !last.IsMark() || last.Mark != EndMark {
		return nil, ErrTruncated
	}
	return l, nil
}

// Digest is the CRC-64 (ECMA) of the log's bytes, super block to last
// entry, with their length: kept when the log is written, it shows later
// that the log was not changed by a bad block or a stray write. (A
// cryptographic hash would guard against nothing more here, and
// crypto/sha256 would add a tenth to the target runner.)
func (l *Log) Digest() (string, error) {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	if _, err := io.Copy(h, io.NewSectionReader(l.r, 0, l.End)); err != nil {
		return "", fmt.Errorf("reading the write log: %w", err)
	}
	return fmt.Sprintf("crc64:%016x:%d", h.Sum64(), l.End), nil
}

// FindMark returns the index of the first mark named text, -1 when there
// is none.
func (l *Log) FindMark(text string) int {
	for _, e := range l.Entries {
		if e.IsMark() && e.Mark == text {
			return e.Index
		}
	}
	return -1
}

// Data reads an entry's data.
func (l *Log) Data(e Entry, buf []byte) ([]byte, error) {
	n := int64(e.Sectors) * l.SectorSize
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := l.r.ReadAt(buf, e.Offset); err != nil {
		return nil, fmt.Errorf("reading the data of write log entry %d: %w", e.Index, err)
	}
	return buf, nil
}
