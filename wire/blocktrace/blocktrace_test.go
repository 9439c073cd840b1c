package blocktrace

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// sample is a small workload: sequential writes, a jump back, a discard,
// a flush, FUA and preflush writes, a read.
func sample() []Record {
	return []Record{
		{Op: Write, Sector: 2048, Sectors: 8, Micros: 1_000_000},
		{Op: Write, Sector: 2056, Sectors: 8, Micros: 1_000_040},
		{Op: Write, Sector: 2064, Sectors: 16, Micros: 1_000_050},
		{Op: Write, Sector: 8, Sectors: 16, Micros: 1_000_050},
		{Op: Flush, Micros: 1_000_300},
		{Op: Write, FUA: true, Sector: 24, Sectors: 1, Micros: 1_000_310},
		{Op: Discard, Sector: 4096, Sectors: 4096, Micros: 999_000}, // times need not grow
		{Op: Write, PreFlush: true, FUA: true, Sector: 0, Sectors: 8, Micros: 1_200_000},
		{Op: Read, Sector: 1 << 40, Sectors: 256, Micros: 1_200_001},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, times := range []bool{false, true} {
		want := sample()
		if !times {
			for i := range want {
				want[i].Micros = 0
			}
		}
		b, err := Encode(sample(), Options{Times: times})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("times=%v: %v", times, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("times=%v: decoded\n %v\nwant\n %v", times, got, want)
		}
		s, err := EncodeString(sample(), Options{Times: times})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(s, "blocktrace/1:") {
			t.Errorf("string form %q lacks its prefix", s)
		}
		got, err = DecodeString(s)
		if err != nil {
			t.Fatalf("times=%v: %v", times, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("times=%v: string form decoded\n %v\nwant\n %v", times, got, want)
		}
	}
}

// TestBytes pins the binary layout, so that a change of the format shows
// as a change of this test and of Version.
func TestBytes(t *testing.T) {
	rs := []Record{
		{Op: Write, Sector: 2048, Sectors: 8},
		{Op: Write, Sector: 2056, Sectors: 8},            // contiguous, same length: the tag alone
		{Op: Write, FUA: true, Sector: 2000, Sectors: 1}, // delta -64 from 2064
		{Op: Flush},
		{Op: Discard, Sector: 2001, Sectors: 1},
	}
	b, err := Encode(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "42545243" + "01" + "00" + // BTRC, version 1, no times
		"01" + "8020" + "08" + // write, zigzag(2048)=4096, 8 sectors
		"61" + // write|contiguous|same length
		"09" + "7f" + "01" + // write|FUA, zigzag(-64)=127, 1 sector
		"03" + // flush
		"62" + // discard|contiguous|same length
		"00" + "05" // end, 5 records
	if got := hex.EncodeToString(b); got != want {
		t.Errorf("bytes\n %s\nwant\n %s", got, want)
	}
}

func TestTotals(t *testing.T) {
	s := NewStringEncoder(Options{})
	for _, r := range sample() {
		if err := s.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	want := Totals{Records: 9, Writes: 6, BytesWritten: (8 + 8 + 16 + 16 + 1 + 8) * 512, Discards: 1, BytesDiscarded: 4096 * 512,
		Reads: 1, BytesRead: 256 * 512, Flushes: 2, FUAWrites: 2}
	if got := s.Totals(); got != want {
		t.Errorf("totals %+v, want %+v", got, want)
	}
	if got := Sum(sample()); got != want {
		t.Errorf("Sum %+v, want %+v", got, want)
	}
	out, err := s.String()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.String(); again != out || err != nil {
		t.Errorf("String a second time: %q, %v", again, err)
	}
	if err := s.Encode(sample()[0]); err == nil {
		t.Error("a record after String was accepted")
	}
}

// TestSize: a filesystem's sequential writes cost a byte a record in the
// binary stream without times, about three with them, and much less in the
// string form; scattered ones a few bytes more.
func TestSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var seq, scattered []Record
	var us uint64
	for i := range 20000 {
		us += 20 + rng.Uint64N(300)
		seq = append(seq, Record{Op: Write, Sector: uint64(i) * 8, Sectors: 8, Micros: us})
		size := []uint32{8, 8, 8, 16, 32, 256}[rng.IntN(6)]
		scattered = append(scattered, Record{Op: Write, Sector: rng.Uint64N(1<<21) * 8, Sectors: size, Micros: us})
	}
	for _, c := range []struct {
		name           string
		rs             []Record
		times          bool
		binMax, strMax float64 // bytes a record
	}{
		{"sequential", seq, false, 1.01, 0.1},
		{"sequential with times", seq, true, 3, 2},
		{"scattered", scattered, false, 6, 6.5}, // random deltas do not deflate; base64 adds a third
		{"scattered with times", scattered, true, 8, 8.5},
	} {
		b, err := Encode(c.rs, Options{Times: c.times})
		if err != nil {
			t.Fatal(err)
		}
		s, err := EncodeString(c.rs, Options{Times: c.times})
		if err != nil {
			t.Fatal(err)
		}
		bin, str := float64(len(b))/float64(len(c.rs)), float64(len(s))/float64(len(c.rs))
		t.Logf("%s: %.2f bytes a record binary, %.2f in the string form", c.name, bin, str)
		if bin > c.binMax || str > c.strMax {
			t.Errorf("%s: %.2f bytes a record binary (max %.2f), %.2f string (max %.2f)", c.name, bin, c.binMax, str, c.strMax)
		}
	}
}

func TestEncoderRefusesImpossibleRecords(t *testing.T) {
	for _, r := range []Record{
		{},
		{Op: 5, Sectors: 1},
		{Op: Write},
		{Op: Discard, Sector: 10},
		{Op: Flush, Sector: 1},
		{Op: Flush, FUA: true},
		{Op: Read, FUA: true, Sectors: 1},
		{Op: Discard, PreFlush: true, Sectors: 1},
		{Op: Write, Sector: MaxSector - 1, Sectors: 2},
		{Op: Write, Sectors: 1, Micros: MaxMicros + 1},
	} {
		var b bytes.Buffer
		e, _ := NewEncoder(&b, Options{Times: true})
		if err := e.Encode(Record{Op: Write, Sectors: 1}); err != nil {
			t.Fatal(err)
		}
		if err := e.Encode(r); err == nil || !strings.Contains(err.Error(), "record 1:") {
			t.Errorf("%+v: error %v, want one naming record 1", r, err)
		}
		// The refused record left the stream whole.
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if got, err := Decode(b.Bytes()); err != nil || len(got) != 1 {
			t.Errorf("%+v: the stream after a refused record decodes to %v, %v", r, got, err)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	valid, err := Encode([]Record{{Op: Write, Sector: 8, Sectors: 8}, {Op: Flush}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hdr := "BTRC\x01\x00"
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", "header: the trace ends before its end mark"},
		{"magic", "BTRX\x01\x00\x00\x00", `header: magic "BTRX"`},
		{"version", "BTRC\x02\x00\x00\x00", "header: version 2"},
		{"flags", "BTRC\x01\x02\x00\x00", "header: unknown flags 0x2"},
		{"no end mark", string(valid[:len(valid)-2]), "record 2: the trace ends before its end mark"},
		{"cut in a record", string(valid[:7]), "record 0: sector: the trace ends before its end mark"},
		{"count", string(valid[:len(valid)-1]) + "\x03", "record 2: end mark counts 3 records, the stream holds 2"},
		{"trailing", string(valid) + "\x00", "record 2: after the end mark: bytes follow the end mark"},
		{"op", hdr + "\x05\x02\x01\x00\x01", "record 0: tag 0x5: unknown operation 5"},
		{"reserved", hdr + "\x81\x02\x01\x00\x01", "record 0: tag 0x81 sets the reserved bit"},
		{"zero-length write", hdr + "\x01\x02\x00\x00\x01", "record 0: zero-length write"},
		{"zero-length from same length", hdr + "\x41\x02\x00\x01", "record 0: zero-length write"},
		{"flush flags", hdr + "\x0b\x00\x01", "record 0: tag 0xb: a flush carries no flags"},
		{"fua discard", hdr + "\x0a\x02\x01\x00\x01", "record 0: FUA or preflush on a discard"},
		{"negative sector", hdr + "\x01\x02\x08" + "\x01\x13\x01" + "\x00\x02", "record 1: sector delta -10 from 9 leaves the range"},
		{"sector overflow", hdr + "\x01\x80\x80\x80\x80\x80\x80\x80\x80\x04\x01\x00\x01", "record 0: sector delta 144115188075855872 from 0 leaves the range"},
		{"end overflow", hdr + "\x01\xfe\xff\xff\xff\xff\xff\xff\xff\x01\x04\x00\x01", "end past the format's limit"},
		{"length overflow", hdr + "\x01\x02\x80\x80\x80\x80\x10\x00\x01", "record 0: length 4294967296 sectors does not fit 32 bits"},
		{"non-minimal varint", hdr + "\x01\x82\x00\x01\x00\x01", "record 0: sector: non-minimal varint"},
		{"varint overflow", hdr + "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", "record 0: sector: varint overflows 64 bits"},
		{"zero delta", hdr + "\x01\x00\x01\x00\x01", "record 0: explicit zero sector delta"},
		{"repeated length", hdr + "\x01\x02\x01" + "\x21\x01" + "\x00\x02", "record 1: explicit repeated length"},
		{"time underflow", "BTRC\x01\x01" + "\x03\x01" + "\x00\x01", "record 0: time delta -1µs leaves the format's range"},
	} {
		_, err := Decode([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := Decode(valid[:len(valid)-2]); !errors.Is(err, ErrTruncated) {
		t.Errorf("a stream without its end mark: %v, want ErrTruncated", err)
	}
}

func TestDecodeStringRejects(t *testing.T) {
	s, err := EncodeString(sample(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.TrimPrefix(s, StringPrefix)
	for _, c := range []struct{ name, in, want string }{
		{"no prefix", body, "not a block trace"},
		{"other version", "blocktrace/2:" + body, `string form "blocktrace/2"`},
		{"padding", s + "==", "base64"},
		{"alphabet", s[:len(s)-1] + "-", "base64"},
		{"cut", StringPrefix + body[:len(body)/4*4-8], "the trace ends before its end mark"},
		{"not deflate", StringPrefix + "////////", "corrupt input"},
		{"trailing", s + "AAAA", "follow the deflated stream"},
	} {
		_, err := DecodeString(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDecoderStreams: Next returns the records one by one, io.EOF at the
// end, and a stopped decoder keeps its error.
func TestDecoderStreams(t *testing.T) {
	b, _ := Encode(sample()[:2], Options{})
	d, err := NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if r, err := d.Next(); err != nil || r.Sector != sample()[i].Sector {
			t.Fatalf("record %d: %v, %v", i, r, err)
		}
	}
	for range 2 {
		if _, err := d.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the last record: %v, want EOF", err)
		}
	}
	d, _ = NewDecoder(bytes.NewReader(b[:len(b)-2]))
	d.Next()
	d.Next()
	_, err1 := d.Next()
	_, err2 := d.Next()
	if err1 == nil || err1 != err2 {
		t.Errorf("a truncated stream: %v then %v, want the same error twice", err1, err2)
	}
}
