package logwrites_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// sample is a small workload: a "mkfs" write, its mark, two writes, a
// flush, a discard, a FUA write, a user mark, the end mark.
func sample() *logwritestest.Builder {
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'M', 2, 0)                         // 0
	b.Flush()                                     // 1
	b.Mark("mkfs")                                // 2
	b.Write(4, 'a', 1, 0)                         // 3
	b.Write(6, 'b', 2, logwrites.FlagMetadata)    // 4
	b.Flush()                                     // 5
	b.Entry(6, 1, logwrites.FlagDiscard, "", nil) // 6
	b.Write(1, 'c', 1, logwrites.FlagFUA)         // 7
	b.Mark("user")                                // 8
	b.Write(9, 'd', 1, 0)                         // 9
	b.Mark(logwrites.EndMark)                     // 10
	return b
}

type memDev []byte

func (m memDev) WriteAt(p []byte, off int64) (int, error) { return copy(m[off:], p), nil }

func TestOpenReadsEveryEntry(t *testing.T) {
	raw := sample().Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 16*512)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 11 || l.End != int64(len(raw)) {
		t.Fatalf("%d entries ending at %d, want 11 at %d", len(l.Entries), l.End, len(raw))
	}
	if got := l.FindMark("mkfs"); got != 2 {
		t.Errorf("mkfs mark at %d, want 2", got)
	}
	var kinds []string
	for _, e := range l.Entries {
		kinds = append(kinds, e.String())
	}
	want := "#0 write sectors 0+2|#1 flush|#2 mark \"mkfs\"|#3 write sectors 4+1|#4 write+meta sectors 6+2|#5 flush|" +
		"#6 discard sectors 6+1|#7 write+fua sectors 1+1|#8 mark \"user\"|#9 write sectors 9+1|#10 mark \"dm-log-writes-end\""
	if got := strings.Join(kinds, "|"); got != want {
		t.Errorf("entries\n %s\nwant\n %s", got, want)
	}
}

func TestStatesAndReplay(t *testing.T) {
	raw := sample().Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 16*512)
	if err != nil {
		t.Fatal(err)
	}
	from := l.FindMark("mkfs") + 1
	got := l.States(logwrites.Points{Flush: true, FUA: true, From: from})
	want := []logwrites.State{{Applied: 6, Point: "flush"}, {Applied: 8, Point: "fua"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("states %v, want %v", got, want)
	}
	all := l.States(logwrites.Points{Flush: true, FUA: true, Marks: true, EveryWrite: 1, From: from})
	if len(all) != 6 { // 3, 4 (writes), 5 (flush), 7 (fua), 8 (mark), 9 (write)
		t.Fatalf("states with marks and every write: %v", all)
	}

	dev := make(memDev, 16*512)
	r := logwrites.NewReplayer(l, dev)
	if err := r.To(6); err != nil {
		t.Fatal(err)
	}
	sector := func(n int) byte { return dev[n*512] }
	if sector(0) != 'M' || sector(4) != 'a' || sector(6) != 'b' || sector(7) != 'b' || sector(1) != 'M' {
		t.Errorf("after the flush: sectors %q", []byte{sector(0), sector(1), sector(4), sector(6), sector(7)})
	}
	if err := r.To(8); err != nil {
		t.Fatal(err)
	}
	if sector(6) != 0 || sector(7) != 'b' || sector(1) != 'c' {
		t.Errorf("after the discard and the FUA write: sectors 1=%q 6=%q 7=%q", sector(1), sector(6), sector(7))
	}
	if err := r.To(5); err == nil {
		t.Error("replaying backwards was accepted")
	}

	// A dropped write is not replayed.
	dev2 := make(memDev, 16*512)
	r2 := logwrites.NewReplayer(l, dev2)
	r2.Skip = map[int]bool{3: true}
	if err := r2.To(len(l.Entries)); err != nil {
		t.Fatal(err)
	}
	if dev2[4*512] != 0 || dev2[9*512] != 'd' {
		t.Errorf("with entry 3 dropped: sector 4=%q 9=%q", dev2[4*512], dev2[9*512])
	}
}

func TestOpenRefusesBrokenLogs(t *testing.T) {
	good := sample().Bytes()
	cases := []struct {
		name   string
		edit   func(b []byte) []byte
		devSz  int64
		expect string
	}{
		{"magic", func(b []byte) []byte { b[0] ^= 1; return b }, 0, "not a dm-log-writes log"},
		{"version", func(b []byte) []byte { b[8] = 2; return b }, 0, "version 2"},
		{"sector size", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[24:], 1000); return b }, 0, "power of two"},
		{"too many entries", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<40); return b }, 0, "more than its"},
		{"cut short", func(b []byte) []byte { return b[:len(b)-512] }, 0, "past the log's end"},
		{"no end mark", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 10); return b }, 0, "end mark"},
		{"unknown flag", func(b []byte) []byte { b[512*4+16] |= 0x80; return b }, 0, "unknown flags"},
		{"dirty padding", func(b []byte) []byte { b[512*4+200] = 1; return b }, 0, "padding"},
		{"past the device", func(b []byte) []byte { return b }, 8 * 512, "past the device's end"},
		{"mark with sectors", func(b []byte) []byte {
			// entry 2 (the mkfs mark) sits after the super, entry 0 (3
			// sectors) and entry 1 (1 sector).
			binary.LittleEndian.PutUint64(b[512*5+8:], 3)
			return b
		}, 0, "malformed mark"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(bytes.Clone(good))
			_, err := logwrites.Open(bytes.NewReader(b), int64(len(b)), c.devSz)
			if err == nil || !strings.Contains(err.Error(), c.expect) {
				t.Fatalf("error %v, want one saying %q", err, c.expect)
			}
		})
	}
	b := bytes.Clone(good)
	binary.LittleEndian.PutUint64(b[16:], 10)
	if _, err := logwrites.Open(bytes.NewReader(b), int64(len(b)), 0); !errors.Is(err, logwrites.ErrTruncated) {
		t.Errorf("a log without its end mark: %v, want logwrites.ErrTruncated", err)
	}
}

func TestDigestSeesAChangedByte(t *testing.T) {
	raw := sample().Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 0)
	if err != nil {
		t.Fatal(err)
	}
	d1, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	raw[512*2+100] ^= 0xff // data of entry 0, which no check reads
	l2, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 0)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := l2.Digest()
	if d1 == d2 {
		t.Error("the digest did not change with the log's data")
	}
}
