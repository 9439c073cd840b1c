package blocktrace

import (
	"fmt"
	"math"
)

// SectorSize is the unit of a record's sectors: the block layer's 512-byte
// sector, whatever the device's logical block size.
const SectorSize = 512

// MaxSector bounds a record's end (Sector+Sectors): 2^56 sectors are 32 EiB,
// far past any flash device, and keep every delta inside an int64.
const MaxSector = 1 << 56

// MaxMicros bounds a record's time, so that time deltas fit an int64.
const MaxMicros = 1 << 62

// Op is the kind of a request.
type Op uint8

// The operations. The zero Op is no operation, so that a zero Record is
// never taken for a write.
const (
	Write   Op = 1
	Discard Op = 2 // a discard or a secure erase: the sectors' data is gone
	Flush   Op = 3 // a cache flush without data (a preflush-only request)
	Read    Op = 4 // kept because it is cheap; the FTL model ignores reads
)

func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case Discard:
		return "discard"
	case Flush:
		return "flush"
	case Read:
		return "read"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Record is one completed request.
type Record struct {
	Op Op
	// FUA and PreFlush belong to writes only: the data reached stable
	// storage before completion (FUA), the device's cache was flushed
	// before the data was written (PreFlush).
	FUA, PreFlush bool
	// Sector is the first 512-byte sector, relative to the partition's
	// start; Sectors the request's length. Both are zero for a flush.
	Sector  uint64
	Sectors uint32
	// Micros is the completion time in microseconds of the trace clock;
	// zero in a trace without times.
	Micros uint64
}

// End is the sector just past the record.
func (r Record) End() uint64 { return r.Sector + uint64(r.Sectors) }

// Bytes is the record's length in bytes.
func (r Record) Bytes() int64 { return int64(r.Sectors) * SectorSize }

func (r Record) String() string {
	if r.Op == Flush {
		return "flush"
	}
	s := r.Op.String()
	if r.PreFlush {
		s = "preflush+" + s
	}
	if r.FUA {
		s += "+fua"
	}
	return fmt.Sprintf("%s %d+%d", s, r.Sector, r.Sectors)
}

// check says why a record cannot be in a trace.
func (r Record) check() error {
	switch r.Op {
	case Flush:
		if r.Sector != 0 || r.Sectors != 0 || r.FUA || r.PreFlush {
			return fmt.Errorf("a flush carries no sectors and no flags (%d+%d fua=%v preflush=%v)", r.Sector, r.Sectors, r.FUA, r.PreFlush)
		}
		return nil
	case Write, Discard, Read:
	default:
		return fmt.Errorf("unknown operation %d", uint8(r.Op))
	}
	if r.Sectors == 0 {
		return fmt.Errorf("zero-length %s", r.Op)
	}
	if r.Op != Write && (r.FUA || r.PreFlush) {
		return fmt.Errorf("FUA or preflush on a %s", r.Op)
	}
	if r.Sector >= MaxSector || r.End() > MaxSector {
		return fmt.Errorf("sectors %d+%d end past the format's limit of %d", r.Sector, r.Sectors, uint64(MaxSector))
	}
	if r.Micros > MaxMicros {
		return fmt.Errorf("time %dµs past the format's limit", r.Micros)
	}
	return nil
}

// Totals sums a trace, so that the runner can report it without decoding.
type Totals struct {
	Records        int64 `json:"records"`
	Writes         int64 `json:"writes"`
	BytesWritten   int64 `json:"bytes_written"`
	Discards       int64 `json:"discards"`
	BytesDiscarded int64 `json:"bytes_discarded"`
	Reads          int64 `json:"reads"`
	BytesRead      int64 `json:"bytes_read"`
	// Flushes counts cache flushes: flush records and writes with a
	// preflush.
	Flushes   int64 `json:"flushes"`
	FUAWrites int64 `json:"fua_writes"`
}

// Add counts one record.
func (t *Totals) Add(r Record) {
	t.Records++
	switch r.Op {
	case Write:
		t.Writes++
		t.BytesWritten += r.Bytes()
		if r.FUA {
			t.FUAWrites++
		}
		if r.PreFlush {
			t.Flushes++
		}
	case Discard:
		t.Discards++
		t.BytesDiscarded += r.Bytes()
	case Read:
		t.Reads++
		t.BytesRead += r.Bytes()
	case Flush:
		t.Flushes++
	}
}

// Sum totals records.
func Sum(rs []Record) Totals {
	var t Totals
	for _, r := range rs {
		t.Add(r)
	}
	return t
}

// The tag's bits.
const (
	tagOp         = 0x07
	tagFUA        = 1 << 3
	tagPreFlush   = 1 << 4
	tagContiguous = 1 << 5
	tagSameLength = 1 << 6
	tagReserved   = 1 << 7

	tagEnd = 0 // op 0: the end mark
)

// Header.
const (
	Magic   = "BTRC"
	Version = 1

	flagTimes = 1 << 0
)

// cursor is what a record's deltas are taken from: the state encoder and
// decoder share.
type cursor struct {
	end    uint64 // end of the previous data record
	length uint32 // length of the previous data record
	micros uint64
	count  int64
}

// zigzag maps signed deltas to small unsigned numbers, as protobuf does.
func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// delta is b-a as an int64; both are below 2^62, so it cannot overflow.
func delta(a, b uint64) int64 {
	if b >= a {
		return int64(b - a)
	}
	return -int64(a - b)
}

// add applies a delta, refusing a result below zero or above limit.
func add(a uint64, d int64, limit uint64) (uint64, bool) {
	if d < 0 {
		if d == math.MinInt64 || uint64(-d) > a {
			return 0, false
		}
		return a - uint64(-d), true
	}
	if uint64(d) > limit || a > limit-uint64(d) {
		return 0, false
	}
	return a + uint64(d), true
}
