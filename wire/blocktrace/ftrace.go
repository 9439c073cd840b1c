package blocktrace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrRequestFailed reports a request the device completed with an error:
// it is not a record (a failed write is not counted as written), but the
// caller counts it rather than lose it silently.
var ErrRequestFailed = errors.New("the request failed")

// ErrUnclassified reports a request with data whose operation the event
// does not name: on 6.1, blk_fill_rwbs prints 'N' for every operation but
// read, write, flush, discard and secure erase, so a write-zeroes (which
// MMC does not issue, but a SCSI card reader may) cannot be told from a
// zone or driver-private operation.
var ErrUnclassified = errors.New("a request with data of an operation the trace does not name")

// Source is what a trace records: the disk the kernel's events name, and
// the partition on it.
type Source struct {
	// Major and Minor are the whole disk's device number (254,0; 179,0
	// for mmcblk0): block_rq_complete names the request queue's disk,
	// never the partition, and its sectors count from the disk's start.
	Major, Minor uint32
	// Start is the partition's first sector on the disk; Sectors its
	// length, 0 for "to the disk's end".
	Start, Sectors uint64
}

const rqComplete = "block_rq_complete: "

// ParseLine turns one line of the kernel's text trace (tracefs trace or
// trace_pipe) into a record of the partition. The event's format, as
// include/trace/events/block.h prints it in Linux 6.1:
//
//	<task>-<pid> [cpu] <flags> <seconds>.<micros>: block_rq_complete: M,m RWBS (cmd) sector + nr_sectors [error]
//
// where RWBS comes from blk_fill_rwbs (kernel/trace/blktrace.c): 'F' for
// REQ_PREFLUSH, then the operation ('W' write, 'R' read, 'D' discard,
// "DE" secure erase, 'F' flush, 'N' any other), then 'F' for REQ_FUA, 'A'
// readahead, 'S' sync, 'M' meta ('U', atomic, from 6.11). Older kernels'
// lines without "(cmd)" and newer ones with an I/O priority before the
// error ("none,0,0") parse too; the task, flags and time may be missing
// (trace_options noirq-info, nocontext-info).
//
// ok is false, with no error, for a line that is not this event, an event
// of another disk, a request outside the partition, and a request that
// moves no data and flushes nothing. That last case is what 6.1's flush
// machinery (block/blk-flush.c) leaves: it clears REQ_PREFLUSH from a
// request, sends the flush as a request of its own ("FF"), and completes
// the original request a second time, with no sectors left, once the
// flushes are done; its data was recorded at its first completion.
// A driver-private request without data (an MMC ioctl, "N") is not a
// record either.
//
// A request that straddles the partition's edge (a merge on the disk's
// queue can join requests of two partitions) is clipped to the
// partition: the rest belongs to its neighbour. A flush is kept whatever
// its sector (the flush request's is -1): it empties the disk's cache,
// the partition's writes with it.
//
// A failed request is ErrRequestFailed, a request with data of an
// unnamed operation ErrUnclassified; a malformed line is an error that
// quotes it.
func (s Source) ParseLine(line string) (Record, bool, error) {
	i := strings.Index(line, rqComplete)
	if i < 0 || (i > 0 && line[i-1] != ' ') {
		return Record{}, false, nil
	}
	bad := func(format string, a ...any) (Record, bool, error) {
		return Record{}, false, fmt.Errorf("block_rq_complete line %q: %s", line, fmt.Sprintf(format, a...))
	}
	f := strings.Fields(line[i+len(rqComplete):])
	if len(f) < 5 {
		return bad("too few fields")
	}
	major, minor, ok := parseDev(f[0])
	if !ok {
		return bad("device %q is not major,minor", f[0])
	}
	if major != s.Major || minor != s.Minor {
		return Record{}, false, nil
	}
	rw, ok := parseRWBS(f[1])
	if !ok {
		return bad("unknown RWBS %q", f[1])
	}
	f = f[2:]
	if strings.HasPrefix(f[0], "(") { // the command, which old kernels filled for passthrough requests, spaces and all
		for len(f) > 0 && !strings.HasSuffix(f[0], ")") {
			f = f[1:]
		}
		if len(f) == 0 {
			return bad("unterminated command field")
		}
		f = f[1:]
	}
	if (len(f) != 4 && len(f) != 5) || f[1] != "+" {
		return bad("want \"sector + nr_sectors [error]\"")
	}
	sector, err1 := strconv.ParseUint(f[0], 10, 64)
	n, err2 := strconv.ParseUint(f[2], 10, 32)
	last := f[len(f)-1]
	if err1 != nil || err2 != nil || !strings.HasPrefix(last, "[") || !strings.HasSuffix(last, "]") {
		return bad("want \"sector + nr_sectors [error]\"")
	}
	errno, err := strconv.Atoi(last[1 : len(last)-1])
	if err != nil {
		return bad("error field %q is not a number", last)
	}
	micros, err := parseTime(line[:i])
	if err != nil {
		return bad("%v", err)
	}
	r, ok, err := s.record(rw, sector, uint32(n))
	if err != nil {
		return Record{}, false, fmt.Errorf("block_rq_complete line %q: %w", line, err)
	}
	if !ok {
		return Record{}, false, nil
	}
	if errno != 0 {
		return Record{}, false, fmt.Errorf("%w: %s (error %d)", ErrRequestFailed, r, errno)
	}
	r.Micros = micros
	return r, true, nil
}

// record classifies a request and places it in the partition.
func (s Source) record(rw rwbs, sector uint64, n uint32) (Record, bool, error) {
	switch {
	case rw.op == 'F' || (rw.preflush && n == 0):
		if n != 0 {
			return Record{}, false, fmt.Errorf("a flush of %d sectors", n)
		}
		return Record{Op: Flush}, true, nil
	case n == 0:
		return Record{}, false, nil // see ParseLine: a second completion, or a request without data
	case rw.op == 'N':
		return Record{}, false, ErrUnclassified
	}
	r := Record{Op: Read}
	switch rw.op {
	case 'W':
		r = Record{Op: Write, FUA: rw.fua, PreFlush: rw.preflush}
	case 'D':
		r.Op = Discard
	}
	lo, hi := sector, sector+uint64(n)
	end := s.Start + s.Sectors
	if s.Sectors == 0 {
		end = ^uint64(0)
	}
	if hi <= s.Start || lo >= end {
		return Record{}, false, nil
	}
	lo, hi = max(lo, s.Start), min(hi, end)
	r.Sector, r.Sectors = lo-s.Start, uint32(hi-lo)
	if r.End() > MaxSector {
		return Record{}, false, fmt.Errorf("sectors %d+%d of the partition end past the format's limit", r.Sector, r.Sectors)
	}
	return r, true, nil
}

func parseDev(s string) (uint32, uint32, bool) {
	a, b, ok := strings.Cut(s, ",")
	major, err1 := strconv.ParseUint(a, 10, 32)
	minor, err2 := strconv.ParseUint(b, 10, 32)
	return uint32(major), uint32(minor), ok && err1 == nil && err2 == nil
}

// rwbs is the event's RWBS field, decoded.
type rwbs struct {
	preflush, fua bool
	op            byte // W R D F N; "DE" is D
}

// parseRWBS decodes blk_fill_rwbs's string. A leading F is REQ_PREFLUSH
// when an operation letter follows it, else the flush operation itself;
// the flag letters must come in the kernel's order, once each.
func parseRWBS(s string) (rwbs, bool) {
	var r rwbs
	isOp := func(c byte) bool { return strings.IndexByte("WRDFN", c) >= 0 }
	if len(s) >= 2 && s[0] == 'F' && isOp(s[1]) {
		r.preflush, s = true, s[1:]
	}
	if s == "" || !isOp(s[0]) {
		return r, false
	}
	r.op, s = s[0], s[1:]
	if r.op == 'D' && strings.HasPrefix(s, "E") {
		s = s[1:]
	}
	if strings.HasPrefix(s, "F") {
		r.fua, s = true, s[1:]
	}
	for _, flag := range "ASMU" {
		s = strings.TrimPrefix(s, string(flag))
	}
	return r, s == ""
}

// parseTime reads the time stamp that ends the line's context
// ("1234.567890:"), or none when the context is off.
func parseTime(context string) (uint64, error) {
	f := strings.Fields(context)
	if len(f) == 0 {
		return 0, nil
	}
	ts, ok := strings.CutSuffix(f[len(f)-1], ":")
	secs, frac, dot := strings.Cut(ts, ".")
	s, err := strconv.ParseUint(secs, 10, 64)
	if !ok || !dot || err != nil || len(frac) == 0 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" || s > MaxMicros/1000000 {
		return 0, fmt.Errorf("time stamp %q is not seconds.micros (use a trace_clock that counts time: local, global, mono, boot)", f[len(f)-1])
	}
	frac = (frac + "000000")[:6] // to microseconds; nanoseconds are cut
	us, _ := strconv.ParseUint(frac, 10, 64)
	return s*1e6 + us, nil
}
