package populate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// This is a reader of the tar archives GNU tar --format=pax writes (POSIX
// pax: ustar headers, with extended headers for long names, sizes, owners,
// sub-second times and SCHILY.xattr records), and of plain ustar and GNU
// long names. It reads what Extract needs and refuses the rest. archive/tar
// would add a tenth to the target runner, which links this package, for
// formats (GNU sparse files, old V7 and star variants, writing) that a
// helper boot never sees.

const blockSize = 512

// Member types.
const (
	typeReg      = '0'
	typeRegOld   = 0 // a NUL type flag is a regular file
	typeLink     = '1'
	typeSymlink  = '2'
	typeChar     = '3'
	typeBlock    = '4'
	typeDir      = '5'
	typeFifo     = '6'
	typeCont     = '7' // contiguous file: a regular file
	typePAX      = 'x'
	typePAXGlob  = 'g'
	typeLongName = 'L' // GNU
	typeLongLink = 'K' // GNU
)

// maxMeta bounds an extended header or a long name, so that a damaged
// archive cannot make the helper allocate without limit.
const maxMeta = 1 << 20

// header is one member of the archive.
type header struct {
	name, linkname string
	typeflag       byte
	mode           int64
	uid, gid       int
	size           int64
	// mtime and atime are nanoseconds since 1970; atime is -1 when the
	// archive gives none.
	mtime, atime       int64
	devmajor, devminor int64
	// xattrs are the SCHILY.xattr records, by name.
	xattrs map[string]string
}

// xattrNames returns the names of h's xattrs, sorted.
func (h *header) xattrNames() []string {
	names := make([]string, 0, len(h.xattrs))
	for k := range h.xattrs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// tarReader reads members one by one; Read reads the current member's
// data.
type tarReader struct {
	r       io.Reader
	left    int64 // data bytes of the current member not yet read
	pad     int64 // padding after them
	globals map[string]string
	block   [blockSize]byte
}

func newTarReader(r io.Reader) *tarReader {
	return &tarReader{r: r, globals: map[string]string{}}
}

var errTarTruncated = errors.New("tar archive ends in the middle of a member")

// next skips what is left of the current member and returns the next
// one, or io.EOF at the archive's end.
func (t *tarReader) next() (*header, error) {
	if err := t.skip(); err != nil {
		return nil, err
	}
	pax := map[string]string{}
	var longName, longLink string
	for {
		if _, err := io.ReadFull(t.r, t.block[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF // an archive without its end blocks: what was read is whole
			}
			return nil, errTarTruncated
		}
		if allZero(t.block[:]) {
			return nil, io.EOF
		}
		h, err := parseHeader(&t.block)
		if err != nil {
			return nil, err
		}
		switch h.typeflag {
		case typePAX, typePAXGlob, typeLongName, typeLongLink:
			data, err := t.meta(h.size)
			if err != nil {
				return nil, err
			}
			switch h.typeflag {
			case typePAX:
				err = parsePAX(data, pax)
			case typePAXGlob:
				err = parsePAX(data, t.globals)
			case typeLongName:
				longName = cString(data)
			case typeLongLink:
				longLink = cString(data)
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if longName != "" {
			h.name = longName
		}
		if longLink != "" {
			h.linkname = longLink
		}
		if err := h.apply(t.globals); err != nil {
			return nil, err
		}
		if err := h.apply(pax); err != nil {
			return nil, err
		}
		switch h.typeflag {
		case typeReg, typeRegOld, typeCont:
		default:
			h.size = 0 // links, devices and directories carry no data
		}
		t.left, t.pad = h.size, -h.size&(blockSize-1)
		return h, nil
	}
}

// Read reads the current member's data.
func (t *tarReader) Read(p []byte) (int, error) {
	if t.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > t.left {
		p = p[:t.left]
	}
	n, err := t.r.Read(p)
	t.left -= int64(n)
	if errors.Is(err, io.EOF) && t.left > 0 {
		err = errTarTruncated
	}
	if err == nil && t.left == 0 {
		err = io.EOF
	}
	return n, err
}

// skip discards the rest of the current member and its padding.
func (t *tarReader) skip() error {
	n := t.left + t.pad
	t.left, t.pad = 0, 0
	if n == 0 {
		return nil
	}
	if _, err := io.CopyN(io.Discard, t.r, n); err != nil {
		return errTarTruncated
	}
	return nil
}

// meta reads the data of an extended header or a long name.
func (t *tarReader) meta(size int64) ([]byte, error) {
	if size > maxMeta {
		return nil, fmt.Errorf("tar extended header of %d bytes, more than %d", size, maxMeta)
	}
	data := make([]byte, size+(-size&(blockSize-1)))
	if _, err := io.ReadFull(t.r, data); err != nil {
		return nil, errTarTruncated
	}
	return data[:size], nil
}

// parseHeader reads a ustar header block, checking its checksum.
func parseHeader(b *[blockSize]byte) (*header, error) {
	want, err := parseNumber(b[148:156])
	if err != nil {
		return nil, fmt.Errorf("tar header checksum: %w", err)
	}
	var unsigned, signed int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	if want != unsigned && want != signed {
		return nil, errors.New("tar header checksum mismatch: not a tar archive, or a damaged one")
	}
	h := &header{typeflag: b[156], atime: -1}
	h.name, h.linkname = cString(b[0:100]), cString(b[157:257])
	if string(b[257:262]) == "ustar" {
		if prefix := cString(b[345:500]); prefix != "" {
			h.name = prefix + "/" + h.name
		}
	}
	fields := []struct {
		b   []byte
		set func(int64)
	}{
		{b[100:108], func(v int64) { h.mode = v }},
		{b[108:116], func(v int64) { h.uid = int(v) }},
		{b[116:124], func(v int64) { h.gid = int(v) }},
		{b[124:136], func(v int64) { h.size = v }},
		{b[136:148], func(v int64) { h.mtime = v * 1e9 }},
		{b[329:337], func(v int64) { h.devmajor = v }},
		{b[337:345], func(v int64) { h.devminor = v }},
	}
	for _, f := range fields {
		v, err := parseNumber(f.b)
		if err != nil {
			return nil, fmt.Errorf("tar header of %q: %w", h.name, err)
		}
		f.set(v)
	}
	if h.size < 0 {
		return nil, fmt.Errorf("tar header of %q: negative size", h.name)
	}
	return h, nil
}

// parseNumber reads an octal field, or a base-256 one (GNU, for values
// that do not fit: the high bit of the first byte set).
func parseNumber(b []byte) (int64, error) {
	if len(b) > 0 && b[0]&0x80 != 0 {
		if b[0]&0x40 != 0 || len(b) > 9 && !allZero(b[1:len(b)-8]) {
			return 0, errors.New("base-256 number out of range")
		}
		var v int64
		for i, c := range b {
			if i == 0 {
				c &= 0x7f
			}
			if v > (1<<63-1)>>8 {
				return 0, errors.New("base-256 number out of range")
			}
			v = v<<8 | int64(c)
		}
		return v, nil
	}
	s := strings.Trim(string(b), " \x00")
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 8, 64)
	if err != nil {
		return 0, fmt.Errorf("bad octal number %q", s)
	}
	return v, nil
}

// parsePAX adds the records "LEN key=value\n" of an extended header to m.
func parsePAX(data []byte, m map[string]string) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return errors.New("bad pax record")
		}
		n, err := strconv.Atoi(string(data[:sp]))
		if err != nil || n <= sp+1 || n > len(data) || data[n-1] != '\n' {
			return errors.New("bad pax record length")
		}
		k, v, ok := strings.Cut(string(data[sp+1:n-1]), "=")
		if !ok || k == "" {
			return errors.New("bad pax record")
		}
		m[k] = v
		data = data[n:]
	}
	return nil
}

// apply sets h's fields from pax records.
func (h *header) apply(recs map[string]string) error {
	for k, v := range recs {
		var err error
		switch k {
		case "path":
			h.name = v
		case "linkpath":
			h.linkname = v
		case "size":
			h.size, err = strconv.ParseInt(v, 10, 64)
			if err == nil && h.size < 0 {
				err = errors.New("negative")
			}
		case "uid", "gid":
			var n int
			n, err = strconv.Atoi(v)
			if k == "uid" {
				h.uid = n
			} else {
				h.gid = n
			}
		case "mtime":
			h.mtime, err = paxTime(v)
		case "atime":
			h.atime, err = paxTime(v)
		default:
			if name, ok := strings.CutPrefix(k, "SCHILY.xattr."); ok {
				if h.xattrs == nil {
					h.xattrs = map[string]string{}
				}
				h.xattrs[name] = v
			}
		}
		if err != nil {
			return fmt.Errorf("pax record %s=%q: %v", k, v, err)
		}
	}
	return nil
}

// maxSeconds are the most seconds nanoseconds in an int64 hold.
const maxSeconds = (1<<63 - 1) / 1_000_000_000

// paxTime reads "seconds[.fraction]" as nanoseconds.
func paxTime(s string) (int64, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n > maxSeconds || n < -maxSeconds {
		return 0, errors.New("bad time")
	}
	var ns int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil || ns < 0 {
			return 0, errors.New("bad time")
		}
	}
	if n < 0 {
		ns = -ns
	}
	return n*1e9 + ns, nil
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
