package blocktrace

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// ErrTruncated reports a stream that ends before its end mark.
var ErrTruncated = errors.New("the trace ends before its end mark (truncated)")

// MaxStreamBytes bounds the inflated stream of a string form, so that a
// small string cannot inflate without end; at a few bytes a record it
// holds tens of millions of records.
const MaxStreamBytes = 64 << 20

// MaxRecords bounds what Decode and DecodeString hold in memory (512 MiB
// of records); a Decoder streams any number.
const MaxRecords = 1 << 24

// DecodeError is a trace that does not decode. Record is the index of the
// record at fault, -1 for the header.
type DecodeError struct {
	Record int64
	Err    error
}

func (e *DecodeError) Error() string {
	if e.Record < 0 {
		return "blocktrace: header: " + e.Err.Error()
	}
	return fmt.Sprintf("blocktrace: record %d: %v", e.Record, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decoder reads a trace record by record.
type Decoder struct {
	r     io.ByteReader
	times bool
	cur   cursor
	done  bool
	err   error
	// atEnd checks that nothing follows the end mark.
	atEnd func() error
}

// NewDecoder reads and checks the header of the stream on r.
func NewDecoder(r io.Reader) (*Decoder, error) {
	br, ok := r.(io.ByteReader)
	if !ok {
		br = bufio.NewReader(r)
	}
	d := &Decoder{r: br}
	d.atEnd = func() error {
		if _, err := br.ReadByte(); err != io.EOF {
			if err != nil {
				return err
			}
			return errors.New("bytes follow the end mark")
		}
		return nil
	}
	var hdr [6]byte
	for i := range hdr {
		b, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = ErrTruncated
			}
			return nil, &DecodeError{-1, err}
		}
		hdr[i] = b
	}
	switch {
	case string(hdr[:4]) != Magic:
		return nil, &DecodeError{-1, fmt.Errorf("magic %q, want %q: not a block trace", hdr[:4], Magic)}
	case hdr[4] != Version:
		return nil, &DecodeError{-1, fmt.Errorf("version %d; this reader knows version %d", hdr[4], Version)}
	case hdr[5]&^flagTimes != 0:
		return nil, &DecodeError{-1, fmt.Errorf("unknown flags %#x", hdr[5])}
	}
	d.times = hdr[5]&flagTimes != 0
	return d, nil
}

// Times says whether the records carry times.
func (d *Decoder) Times() bool { return d.times }

// Next returns the next record, io.EOF after the last one, or the error
// that stopped the decoding (and keeps returning it).
func (d *Decoder) Next() (Record, error) {
	if d.err != nil {
		return Record{}, d.err
	}
	if d.done {
		return Record{}, io.EOF
	}
	r, end, err := d.next()
	if err != nil {
		d.err = &DecodeError{d.cur.count, err}
		return Record{}, d.err
	}
	if end {
		d.done = true
		return Record{}, io.EOF
	}
	d.cur.count++
	return r, nil
}

func (d *Decoder) next() (r Record, end bool, err error) {
	tag, err := d.r.ReadByte()
	if err == io.EOF {
		return r, false, ErrTruncated
	}
	if err != nil {
		return r, false, err
	}
	if tag == tagEnd {
		n, err := d.uvarint()
		if err != nil {
			return r, false, fmt.Errorf("end mark: %w", err)
		}
		if n != uint64(d.cur.count) {
			return r, false, fmt.Errorf("end mark counts %d records, the stream holds %d", n, d.cur.count)
		}
		if err := d.atEnd(); err != nil {
			return r, false, fmt.Errorf("after the end mark: %w", err)
		}
		return r, true, nil
	}
	if tag&tagReserved != 0 {
		return r, false, fmt.Errorf("tag %#x sets the reserved bit", tag)
	}
	r = Record{Op: Op(tag & tagOp), FUA: tag&tagFUA != 0, PreFlush: tag&tagPreFlush != 0}
	switch r.Op {
	case Write, Discard, Read:
		if err := d.span(tag, &r); err != nil {
			return r, false, err
		}
	case Flush:
		if tag&^tagOp != 0 {
			return r, false, fmt.Errorf("tag %#x: a flush carries no flags", tag)
		}
	default:
		return r, false, fmt.Errorf("tag %#x: unknown operation %d", tag, r.Op)
	}
	if d.times {
		u, err := d.uvarint()
		if err != nil {
			return r, false, fmt.Errorf("time: %w", err)
		}
		var ok bool
		if r.Micros, ok = add(d.cur.micros, unzigzag(u), MaxMicros); !ok {
			return r, false, fmt.Errorf("time delta %dµs leaves the format's range", unzigzag(u))
		}
		d.cur.micros = r.Micros
	}
	if err := r.check(); err != nil {
		return r, false, err
	}
	if r.Op != Flush {
		d.cur.end, d.cur.length = r.End(), r.Sectors
	}
	return r, false, nil
}

// span reads a data record's sector and length.
func (d *Decoder) span(tag byte, r *Record) error {
	r.Sector = d.cur.end
	if tag&tagContiguous == 0 {
		u, err := d.uvarint()
		if err != nil {
			return fmt.Errorf("sector: %w", err)
		}
		dl := unzigzag(u)
		if dl == 0 {
			return errors.New("explicit zero sector delta (non-canonical: the contiguous bit says it)")
		}
		var ok bool
		if r.Sector, ok = add(d.cur.end, dl, MaxSector); !ok {
			return fmt.Errorf("sector delta %d from %d leaves the range 0..%d", dl, d.cur.end, uint64(MaxSector))
		}
	}
	if tag&tagSameLength != 0 {
		r.Sectors = d.cur.length // zero before the first data record: check refuses it
		return nil
	}
	u, err := d.uvarint()
	if err != nil {
		return fmt.Errorf("length: %w", err)
	}
	switch {
	case u > math.MaxUint32:
		return fmt.Errorf("length %d sectors does not fit 32 bits", u)
	case u != 0 && u == uint64(d.cur.length):
		return errors.New("explicit repeated length (non-canonical: the same-length bit says it)")
	}
	r.Sectors = uint32(u)
	return nil
}

// uvarint reads a minimal unsigned varint.
func (d *Decoder) uvarint() (uint64, error) {
	var x uint64
	for i, shift := 0, uint(0); i < binary.MaxVarintLen64; i, shift = i+1, shift+7 {
		b, err := d.r.ReadByte()
		if err == io.EOF {
			return 0, ErrTruncated
		}
		if err != nil {
			return 0, err
		}
		if i == binary.MaxVarintLen64-1 && b > 1 {
			break
		}
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, errors.New("non-minimal varint")
			}
			return x | uint64(b)<<shift, nil
		}
		x |= uint64(b&0x7f) << shift
	}
	return 0, errors.New("varint overflows 64 bits")
}

// Decode returns every record of a binary stream.
func Decode(b []byte) ([]Record, error) {
	d, err := NewDecoder(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return d.all(len(b))
}

func (d *Decoder) all(hint int) ([]Record, error) {
	rs := make([]Record, 0, min(hint, 1<<16))
	for {
		r, err := d.Next()
		if err == io.EOF {
			return rs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rs) == MaxRecords {
			return nil, &DecodeError{MaxRecords, fmt.Errorf("more than %d records: read them one by one with a Decoder", MaxRecords)}
		}
		rs = append(rs, r)
	}
}

// NewStringDecoder reads a trace in the string form record by record.
func NewStringDecoder(s string) (*Decoder, error) {
	rest, ok := strings.CutPrefix(s, StringPrefix)
	if !ok {
		name, _, _ := strings.Cut(s, ":")
		if strings.HasPrefix(name, "blocktrace/") {
			return nil, &DecodeError{-1, fmt.Errorf("string form %q; this reader knows %q", name, strings.TrimSuffix(StringPrefix, ":"))}
		}
		return nil, &DecodeError{-1, fmt.Errorf("not a block trace: the string does not start with %q", StringPrefix)}
	}
	raw, err := base64.RawStdEncoding.Strict().DecodeString(rest)
	if err != nil {
		return nil, &DecodeError{-1, fmt.Errorf("base64: %w", err)}
	}
	src := bytes.NewReader(raw) // an io.ByteReader: flate reads no further than its stream
	fl := flate.NewReader(src)
	br := bufio.NewReader(&limited{r: fl, left: MaxStreamBytes})
	d, err := NewDecoder(br)
	if err != nil {
		return nil, err
	}
	d.atEnd = func() error {
		if _, err := br.ReadByte(); err != io.EOF {
			if err != nil {
				return err
			}
			return errors.New("bytes follow the end mark")
		}
		if src.Len() != 0 {
			return fmt.Errorf("%d bytes follow the deflated stream", src.Len())
		}
		return nil
	}
	return d, nil
}

// DecodeString returns every record of a trace in the string form.
func DecodeString(s string) ([]Record, error) {
	d, err := NewStringDecoder(s)
	if err != nil {
		return nil, err
	}
	return d.all(len(s))
}

// limited is io.LimitReader with its own error, so that an oversized
// stream does not read as a truncated one.
type limited struct {
	r    io.Reader
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("the inflated trace exceeds %d bytes", MaxStreamBytes)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err == io.ErrUnexpectedEOF {
		err = ErrTruncated
	}
	return n, err
}
