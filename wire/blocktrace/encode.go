package blocktrace

import (
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// StringPrefix names the string form and its version: the binary stream,
// deflated, in unpadded standard base64.
const StringPrefix = "blocktrace/1:"

// Options choose what a trace carries.
type Options struct {
	// Times keeps each record's Micros (one to three bytes a record);
	// without it the encoder drops them.
	Times bool
}

// Encoder writes a trace one record at a time, in constant memory.
type Encoder struct {
	w      io.Writer
	times  bool
	cur    cursor
	totals Totals
	buf    [1 + 3*binary.MaxVarintLen64]byte
	err    error // sticky: a failed or closed encoder writes nothing more
}

var errClosed = errors.New("blocktrace: the encoder is closed")

// NewEncoder writes the header to w and returns an encoder for records.
// Close writes the end mark; a stream without it is truncated.
func NewEncoder(w io.Writer, opts Options) (*Encoder, error) {
	e := &Encoder{w: w, times: opts.Times}
	hdr := []byte(Magic + "\x01\x00")
	hdr[4] = Version
	if opts.Times {
		hdr[5] = flagTimes
	}
	if _, err := w.Write(hdr); err != nil {
		return nil, fmt.Errorf("blocktrace: writing the header: %w", err)
	}
	return e, nil
}

// Encode appends a record. A record that cannot be in a trace (see Record)
// is refused and leaves the stream as it was.
func (e *Encoder) Encode(r Record) error {
	if e.err != nil {
		return e.err
	}
	if !e.times {
		r.Micros = 0
	}
	if err := r.check(); err != nil {
		return fmt.Errorf("blocktrace: record %d: %w", e.cur.count, err)
	}
	b := e.buf[:1]
	tag := byte(r.Op)
	if r.FUA {
		tag |= tagFUA
	}
	if r.PreFlush {
		tag |= tagPreFlush
	}
	if r.Op != Flush {
		if r.Sector == e.cur.end {
			tag |= tagContiguous
		} else {
			b = binary.AppendUvarint(b, zigzag(delta(e.cur.end, r.Sector)))
		}
		if r.Sectors == e.cur.length {
			tag |= tagSameLength
		} else {
			b = binary.AppendUvarint(b, uint64(r.Sectors))
		}
		e.cur.end, e.cur.length = r.End(), r.Sectors
	}
	if e.times {
		b = binary.AppendUvarint(b, zigzag(delta(e.cur.micros, r.Micros)))
		e.cur.micros = r.Micros
	}
	b[0] = tag
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("blocktrace: writing record %d: %w", e.cur.count, err)
		return e.err
	}
	e.cur.count++
	e.totals.Add(r)
	return nil
}

// Totals sums the records encoded so far.
func (e *Encoder) Totals() Totals { return e.totals }

// Close writes the end mark and the record count. It does not close w.
func (e *Encoder) Close() error {
	if e.err != nil {
		if e.err == errClosed {
			return nil
		}
		return e.err
	}
	b := binary.AppendUvarint(append(e.buf[:0], tagEnd), uint64(e.cur.count))
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("blocktrace: writing the end mark: %w", err)
		return e.err
	}
	e.err = errClosed
	return nil
}

// StringEncoder builds the string form of a trace, one record at a time:
// only the output grows.
type StringEncoder struct {
	sb  strings.Builder
	b64 io.WriteCloser
	fl  *flate.Writer
	enc *Encoder
	out string
	err error
}

// NewStringEncoder starts a trace in the string form.
func NewStringEncoder(opts Options) *StringEncoder {
	s := &StringEncoder{}
	s.sb.WriteString(StringPrefix)
	s.b64 = base64.NewEncoder(base64.RawStdEncoding, &s.sb)
	// BestCompression: the serial line is the bottleneck, not the CPU.
	s.fl, _ = flate.NewWriter(s.b64, flate.BestCompression) // fails only for a bad level
	s.enc, s.err = NewEncoder(s.fl, opts)
	return s
}

// Encode appends a record.
func (s *StringEncoder) Encode(r Record) error {
	if s.err != nil {
		return s.err
	}
	return s.enc.Encode(r)
}

// Totals sums the records encoded so far.
func (s *StringEncoder) Totals() Totals { return s.enc.Totals() }

// Len is the length of the string so far, less what the compressor still
// holds (up to a few tens of KiB): a bound for a caller that limits it.
func (s *StringEncoder) Len() int { return s.sb.Len() }

// String ends the trace and returns its string form; records encoded
// afterwards are refused.
func (s *StringEncoder) String() (string, error) {
	if s.out != "" {
		return s.out, nil
	}
	if s.err != nil {
		return "", s.err
	}
	for _, step := range []func() error{s.enc.Close, s.fl.Close, s.b64.Close} {
		if err := step(); err != nil {
			s.err = err
			return "", err
		}
	}
	s.out = s.sb.String()
	s.err = errClosed
	return s.out, nil
}

// Encode returns the binary stream of records.
func Encode(rs []Record, opts Options) ([]byte, error) {
	var b strings.Builder
	e, err := NewEncoder(&b, opts)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if err := e.Encode(r); err != nil {
			return nil, err
		}
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// EncodeString returns the string form of records.
func EncodeString(rs []Record, opts Options) (string, error) {
	s := NewStringEncoder(opts)
	for _, r := range rs {
		if err := s.Encode(r); err != nil {
			return "", err
		}
	}
	return s.String()
}
