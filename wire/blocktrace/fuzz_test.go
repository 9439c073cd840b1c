package blocktrace

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzDecode: decoding arbitrary bytes, as a binary stream and as a string
// form, never panics; whatever decodes re-encodes to the very same bytes
// (the encoding is canonical). The same bytes, read as a list of records,
// round-trip through both forms.
func FuzzDecode(f *testing.F) {
	for _, times := range []bool{false, true} {
		b, err := Encode(sample(), Options{Times: times})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		s, _ := EncodeString(sample(), Options{Times: times})
		f.Add([]byte(s))
	}
	f.Add([]byte("BTRC\x01\x00\x01\x02\x08\x00\x01"))
	f.Add([]byte("blocktrace/1:AAAA"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if rs, err := Decode(in); err == nil {
			d, _ := NewDecoder(bytes.NewReader(in))
			again, err := Encode(rs, Options{Times: d.Times()})
			if err != nil {
				t.Fatalf("decoded records do not re-encode: %v\n%v", err, rs)
			}
			if !bytes.Equal(again, in) {
				t.Fatalf("re-encoding changed the stream:\n %x\n %x", in, again)
			}
		}
		if rs, err := DecodeString(string(in)); err == nil {
			s, err := EncodeString(rs, Options{Times: true})
			if err != nil {
				t.Fatalf("decoded records do not re-encode: %v", err)
			}
			if back, err := DecodeString(s); err != nil || (len(rs) > 0 && !reflect.DeepEqual(back, rs)) {
				t.Fatalf("string form round trip: %v, %v, want %v", back, err, rs)
			}
		}
		rs := records(in)
		for _, times := range []bool{false, true} {
			want := append([]Record(nil), rs...)
			if !times {
				for i := range want {
					want[i].Micros = 0
				}
			}
			b, err := Encode(rs, Options{Times: times})
			if err != nil {
				t.Fatalf("valid records refused: %v", err)
			}
			got, err := Decode(b)
			if err != nil || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("round trip (times=%v): %v, %v\nwant %v", times, got, err, want)
			}
			s, err := EncodeString(rs, Options{Times: times})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := DecodeString(s); err != nil || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("string round trip (times=%v): %v, %v\nwant %v", times, got, err, want)
			}
		}
	})
}

// records reads valid records out of fuzz bytes, 12 bytes a record.
func records(in []byte) []Record {
	var rs []Record
	for ; len(in) >= 12; in = in[12:] {
		r := Record{Op: Op(in[0]%4 + 1)}
		if r.Op == Flush {
			rs = append(rs, r)
			continue
		}
		r.Sector = binary.LittleEndian.Uint64(in[1:9]) % (MaxSector / 2)
		r.Sectors = uint32(in[9])<<(in[10]%24) | 1
		r.Micros = binary.LittleEndian.Uint64(in[2:10]) % MaxMicros
		if r.Op == Write {
			r.FUA, r.PreFlush = in[11]&1 != 0, in[11]&2 != 0
		}
		rs = append(rs, r)
	}
	return rs
}
