package bmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// write is data placed at off in a test image.
type write struct {
	off  int64
	data []byte
}

// image describes a sparse test image: a file truncated to size, so it
// starts as one hole, with writes on top.
type image struct {
	name   string
	size   int64
	writes []write
}

// pattern returns n bytes that are not zero, so a data block can never be
// mistaken for a hole by content, and differ by seed so ranges differ.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i%251) + 1
		if b[i] == 0 {
			b[i] = 0xff
		}
	}
	return b
}

const mib = 1 << 20

// testImages are the images every bmaptool comparison runs on.
var testImages = []image{{
	// Data at a block boundary, across one, zeros written as data, a
	// multi-block run, and the last bytes of a size that is not a
	// multiple of 4096.
	name: "scattered",
	size: 8*mib + 1234,
	writes: []write{
		{0, pattern(BlockSize, 1)},
		{1*mib + 100, pattern(5000, 2)},
		{3 * mib, make([]byte, 2*BlockSize)},
		{5 * mib, pattern(3*BlockSize, 3)},
		{8*mib + 1234 - 10, pattern(10, 4)},
	},
}, {
	name: "nodata",
	size: 8 * mib,
}, {
	name:   "alldata",
	size:   1*mib + 17,
	writes: []write{{0, pattern(1*mib+17, 5)}},
}, {
	name:   "alldata-aligned",
	size:   64 * BlockSize,
	writes: []write{{0, pattern(64*BlockSize, 6)}},
}, {
	// One byte: the mapped size ("4.0 KiB") is longer than the image
	// size ("1 byte"), which shifts bmaptool's comment.
	name:   "onebyte",
	size:   1,
	writes: []write{{0, []byte{'x'}}},
}}

// create builds img in dir and returns its path.
func create(t testing.TB, dir string, img image) string {
	t.Helper()
	path := filepath.Join(dir, img.name+".img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(img.size); err != nil {
		t.Fatal(err)
	}
	for _, w := range img.writes {
		if _, err := f.WriteAt(w.data, w.off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeMap runs Write on path and returns the map's bytes.
func writeMap(t testing.TB, path string) ([]byte, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Write(&buf, path)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// parsed is the content of a bmap, what bmaptool copy reads from it.
type parsed struct {
	Version        string
	ImageSize      int64
	BlockSize      int64
	BlocksCount    int64
	MappedBlocks   int64
	ChecksumType   string
	FileChecksum   string
	Ranges         []blockRange
	RangeChecksums []string
}

func parse(t testing.TB, doc []byte) parsed {
	t.Helper()
	var x struct {
		Version      string `xml:"version,attr"`
		ImageSize    string `xml:"ImageSize"`
		BlockSize    string `xml:"BlockSize"`
		BlocksCount  string `xml:"BlocksCount"`
		MappedBlocks string `xml:"MappedBlocksCount"`
		ChecksumType string `xml:"ChecksumType"`
		FileChecksum string `xml:"BmapFileChecksum"`
		Ranges       []struct {
			Chksum string `xml:"chksum,attr"`
			Text   string `xml:",chardata"`
		} `xml:"BlockMap>Range"`
	}
	if err := xml.Unmarshal(doc, &x); err != nil {
		t.Fatalf("bmap is not XML: %v", err)
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			t.Fatalf("bad number %q: %v", s, err)
		}
		return n
	}
	p := parsed{
		Version:      x.Version,
		ImageSize:    num(x.ImageSize),
		BlockSize:    num(x.BlockSize),
		BlocksCount:  num(x.BlocksCount),
		MappedBlocks: num(x.MappedBlocks),
		ChecksumType: strings.TrimSpace(x.ChecksumType),
		FileChecksum: strings.TrimSpace(x.FileChecksum),
	}
	for _, r := range x.Ranges {
		first, last, ok := strings.Cut(strings.TrimSpace(r.Text), "-")
		if !ok {
			last = first
		}
		p.Ranges = append(p.Ranges, blockRange{num(first), num(last)})
		p.RangeChecksums = append(p.RangeChecksums, r.Chksum)
	}
	return p
}

// checkSelfConsistent checks a map against the image it describes the
// way bmaptool copy does, without needing bmaptool: the file checksum
// with its field zeroed, and each range's checksum over its bytes.
func checkSelfConsistent(t *testing.T, doc []byte, imgPath string) parsed {
	t.Helper()
	p := parse(t, doc)
	zeroed := bytes.Replace(doc, []byte(p.FileChecksum), bytes.Repeat([]byte("0"), len(p.FileChecksum)), 1)
	if sum := sha256.Sum256(zeroed); hex.EncodeToString(sum[:]) != p.FileChecksum {
		t.Errorf("BmapFileChecksum %s does not match the file", p.FileChecksum)
	}
	data, err := os.ReadFile(imgPath)
	if err != nil {
		t.Fatal(err)
	}
	var mapped int64
	prevLast := int64(-2)
	for i, r := range p.Ranges {
		if r.first <= prevLast+1 || r.last < r.first || r.last >= p.BlocksCount {
			t.Errorf("range %d-%d is out of order, adjacent to the previous one, or past the end", r.first, r.last)
			continue
		}
		prevLast = r.last
		mapped += r.last - r.first + 1
		end := min((r.last+1)*p.BlockSize, int64(len(data)))
		sum := sha256.Sum256(data[r.first*p.BlockSize : end])
		if got := hex.EncodeToString(sum[:]); got != p.RangeChecksums[i] {
			t.Errorf("range %d-%d: chksum %s, bytes hash to %s", r.first, r.last, p.RangeChecksums[i], got)
		}
	}
	if mapped != p.MappedBlocks {
		t.Errorf("MappedBlocksCount %d, ranges hold %d blocks", p.MappedBlocks, mapped)
	}
	return p
}

// mappedBlock reports whether block b is in one of p's ranges.
func (p parsed) mappedBlock(b int64) bool {
	for _, r := range p.Ranges {
		if r.first <= b && b <= r.last {
			return true
		}
	}
	return false
}
