package blocktrace

import (
	"errors"
	"strings"
	"testing"
)

// part is mmcblk0p2 of a board: the disk is 179,0 and the partition
// starts at sector 4196352 (2049MiB), 512MiB long.
var part = Source{Major: 179, Minor: 0, Start: 4196352, Sectors: 1 << 20}

func TestParseLine(t *testing.T) {
	ctx := "     kworker/0:1H-31      [000] d..1.  1234.567890: "
	for _, c := range []struct {
		name, line string
		want       Record
		ok         bool
	}{
		{"write", ctx + "block_rq_complete: 179,0 WS () 4196352 + 8 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8, Micros: 1234567890}, true},
		{"FUA write", "          <idle>-0       [001] ..s1.   411.215842: block_rq_complete: 179,0 WFS () 4196360 + 16 [0]",
			Record{Op: Write, FUA: true, Sector: 8, Sectors: 16, Micros: 411215842}, true},
		{"preflush and FUA write (older kernels kept REQ_PREFLUSH)", ctx + "block_rq_complete: 179,0 FWFSM () 4196400 + 8 [0]",
			Record{Op: Write, PreFlush: true, FUA: true, Sector: 48, Sectors: 8, Micros: 1234567890}, true},
		{"flush request of blk-flush.c (sector -1)", " jbd2/mmcblk0p2-8-95 [000] ..s1.    98.100200: block_rq_complete: 179,0 FF () 18446744073709551615 + 0 [0]",
			Record{Op: Flush, Micros: 98100200}, true},
		{"empty preflush write", ctx + "block_rq_complete: 179,0 FWS () 0 + 0 [0]", Record{Op: Flush, Micros: 1234567890}, true},
		{"flush of an old kernel, no cmd field", ctx + "block_rq_complete: 179,0 FN 0 + 0 [0]", Record{Op: Flush, Micros: 1234567890}, true},
		{"discard", "   fstrim-1234  [002] ..s1.    55.000001: block_rq_complete: 179,0 D () 4200448 + 2048 [0]",
			Record{Op: Discard, Sector: 4096, Sectors: 2048, Micros: 55000001}, true},
		{"secure erase", ctx + "block_rq_complete: 179,0 DE () 4200448 + 8 [0]",
			Record{Op: Discard, Sector: 4096, Sectors: 8, Micros: 1234567890}, true},
		{"readahead", ctx + "block_rq_complete: 179,0 RA () 4196352 + 256 [0]",
			Record{Op: Read, Sector: 0, Sectors: 256, Micros: 1234567890}, true},
		{"no cmd field", ctx + "block_rq_complete: 179,0 W 4196352 + 8 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8, Micros: 1234567890}, true},
		{"passthrough cmd of an old kernel", ctx + "block_rq_complete: 179,0 W (2a 00 00 40 08 00) 4196352 + 8 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8, Micros: 1234567890}, true},
		{"I/O priority of 6.10+", ctx + "block_rq_complete: 179,0 WS () 4196352 + 32 none,0,0 [0]",
			Record{Op: Write, Sector: 0, Sectors: 32, Micros: 1234567890}, true},
		{"no context (nocontext-info)", "block_rq_complete: 179,0 WSM () 4196352 + 8 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8}, true},
		{"nanoseconds are cut", "x-1 [000] ..... 1.000000999: block_rq_complete: 179,0 W () 4196352 + 8 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8, Micros: 1000000}, true},
		{"clipped at the partition's start", ctx + "block_rq_complete: 179,0 W () 4196340 + 20 [0]",
			Record{Op: Write, Sector: 0, Sectors: 8, Micros: 1234567890}, true},
		{"clipped at the partition's end", ctx + "block_rq_complete: 179,0 W () 5244920 + 16 [0]",
			Record{Op: Write, Sector: 1048568, Sectors: 8, Micros: 1234567890}, true},

		{"second completion after the flush sequence", ctx + "block_rq_complete: 179,0 WS () 4196352 + 0 [0]", Record{}, false},
		{"FUA write's second completion", ctx + "block_rq_complete: 179,0 WFS () 4196352 + 0 [0]", Record{}, false},
		{"MMC ioctl", ctx + "block_rq_complete: 179,0 N () 0 + 0 [0]", Record{}, false},
		{"another disk", ctx + "block_rq_complete: 8,0 WS () 4196352 + 8 [0]", Record{}, false},
		{"another disk's flush", ctx + "block_rq_complete: 179,32 FF () 18446744073709551615 + 0 [0]", Record{}, false},
		{"another partition", ctx + "block_rq_complete: 179,0 WS () 2048 + 8 [0]", Record{}, false},
		{"past the partition", ctx + "block_rq_complete: 179,0 WS () 5244928 + 8 [0]", Record{}, false},
		{"another event", ctx + "block_rq_issue: 179,0 WS 4096 () 4196352 + 8 [fio]", Record{}, false},
		{"a task named after the event", "xblock_rq_complete: 179,0 WS () 4196352 + 8 [0]", Record{}, false},
		{"not a trace line", "# tracer: nop", Record{}, false},
	} {
		got, ok, err := part.ParseLine(c.line)
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("%s:\n %s\ngot %+v ok=%v err=%v, want %+v ok=%v", c.name, c.line, got, ok, err, c.want, c.ok)
		}
	}
}

func TestParseLineErrors(t *testing.T) {
	ctx := "fio-1234 [002] ..s1. 55.000001: "
	for _, c := range []struct {
		name, line string
		is         error
		want       string
	}{
		{"failed write", ctx + "block_rq_complete: 179,0 WS () 4196352 + 8 [-5]", ErrRequestFailed, "write 0+8 (error -5)"},
		{"failed flush", ctx + "block_rq_complete: 179,0 FF () 18446744073709551615 + 0 [-5]", ErrRequestFailed, "flush"},
		{"write-zeroes on 6.1", ctx + "block_rq_complete: 179,0 N () 4196352 + 8 [0]", ErrUnclassified, ""},
		{"bad device", ctx + "block_rq_complete: 179 WS () 4196352 + 8 [0]", nil, "not major,minor"},
		{"bad RWBS", ctx + "block_rq_complete: 179,0 XS () 4196352 + 8 [0]", nil, `unknown RWBS "XS"`},
		{"RWBS flags out of order", ctx + "block_rq_complete: 179,0 WSF () 4196352 + 8 [0]", nil, "unknown RWBS"},
		{"zone append", ctx + "block_rq_complete: 179,0 ZA () 4196352 + 8 [0]", nil, "unknown RWBS"},
		{"no plus", ctx + "block_rq_complete: 179,0 WS () 4196352 8 [0]", nil, "want"},
		{"no error field", ctx + "block_rq_complete: 179,0 WS () 4196352 + 8", nil, "want"},
		{"too few fields", ctx + "block_rq_complete: 179,0 WS 4196352 +", nil, "too few fields"},
		{"error not a number", ctx + "block_rq_complete: 179,0 WS () 4196352 + 8 [x]", nil, "not a number"},
		{"unterminated cmd", ctx + "block_rq_complete: 179,0 WS (2a 00 4196352 + 8 [0]", nil, "unterminated"},
		{"flush with data", ctx + "block_rq_complete: 179,0 FF () 4196352 + 8 [0]", nil, "a flush of 8 sectors"},
		{"counter clock", "fio-1234 [002] ..s1. 5500000123: block_rq_complete: 179,0 WS () 4196352 + 8 [0]", nil, "seconds.micros"},
	} {
		_, ok, err := part.ParseLine(c.line)
		switch {
		case ok || err == nil:
			t.Errorf("%s: ok=%v err=%v, want an error", c.name, ok, err)
		case c.is != nil && !errors.Is(err, c.is):
			t.Errorf("%s: %v, want %v", c.name, err, c.is)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestParseLineToTheDiskEnd: a source without a length takes every
// request from its start on.
func TestParseLineToTheDiskEnd(t *testing.T) {
	s := Source{Major: 254, Minor: 0, Start: 2048}
	r, ok, err := s.ParseLine("block_rq_complete: 254,0 WS () 1000000000 + 8 [0]")
	if err != nil || !ok || r.Sector != 1000000000-2048 {
		t.Errorf("got %+v ok=%v err=%v", r, ok, err)
	}
}
