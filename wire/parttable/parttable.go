package parttable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"unicode/utf16"
)

// Table is a disk's partition table as the kernel numbers it.
type Table struct {
	Type       string // "gpt" or "dos"
	DiskID     string // GPT disk GUID, or the MBR disk signature as 8 hex digits
	SectorSize int
	Partitions []Partition
}

// Partition is one used slot of a Table.
type Partition struct {
	// Number is the kernel's partition number: the GPT entry index + 1,
	// the MBR slot 1-4, or 5, 6, ... along the chain of logical
	// partitions. The kernel device of partition 2 of vda is vda2.
	Number int
	// UUID is what PARTUUID= matches, in lower case: the GPT unique
	// partition GUID, or for MBR the disk signature and the number as
	// the kernel formats them ("%08x-%02x").
	UUID string
	// Label is the GPT partition name (PARTLABEL=); MBR has none.
	Label string
	// Start and Size are in bytes.
	Start, Size int64
}

// ErrNoTable is returned by ReadTable for a disk with neither a valid GPT
// nor an MBR boot signature, e.g. a filesystem written to a whole disk.
var ErrNoTable = errors.New("no partition table")

// ReadTable reads the partition table of a disk of size bytes with the
// given logical sector size. A GPT is accepted when its header and entry
// array checksums are right; the backup header at the end of the disk is
// used when the primary one is damaged, as the kernel does. Otherwise an
// MBR with the 0x55AA signature is read, logical partitions included.
func ReadTable(r io.ReaderAt, size int64, sectorSize int) (*Table, error) {
	if sectorSize < 512 || sectorSize&(sectorSize-1) != 0 {
		return nil, fmt.Errorf("sector size %d is not a power of two >= 512", sectorSize)
	}
	ss := int64(sectorSize)
	if size < 2*ss {
		return nil, ErrNoTable
	}
	t, gptErr := readGPT(r, ss, 1)
	if gptErr != nil {
		// The backup header sits in the last sector.
		if bt, err := readGPT(r, ss, size/ss-1); err == nil {
			t, gptErr = bt, nil
		}
	}
	if gptErr == nil {
		return t, nil
	}
	mbr := make([]byte, 512)
	if _, err := r.ReadAt(mbr, 0); err != nil {
		return nil, fmt.Errorf("reading the MBR: %w", err)
	}
	if !isMBR(mbr) {
		return nil, ErrNoTable
	}
	if hasProtective(mbr) {
		return nil, fmt.Errorf("protective MBR but no valid GPT: %w", gptErr)
	}
	return readMBR(r, mbr, ss)
}

var errNoGPT = errors.New("no GPT header")

// readGPT reads the GPT header at sector lba and its entry array.
func readGPT(r io.ReaderAt, ss, lba int64) (*Table, error) {
	h := make([]byte, ss)
	if _, err := r.ReadAt(h, lba*ss); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if !bytes.Equal(h[:8], []byte("EFI PART")) {
		return nil, errNoGPT
	}
	hsize := le.Uint32(h[12:])
	if hsize < 92 || int64(hsize) > ss {
		return nil, fmt.Errorf("GPT header size %d", hsize)
	}
	hdr := bytes.Clone(h[:hsize])
	binary.LittleEndian.PutUint32(hdr[16:], 0)
	if crc32.ChecksumIEEE(hdr) != le.Uint32(h[16:]) {
		return nil, errors.New("GPT header checksum mismatch")
	}
	if le.Uint64(h[24:]) != uint64(lba) {
		return nil, fmt.Errorf("GPT header at sector %d says it is at %d", lba, le.Uint64(h[24:]))
	}
	entLBA, n, esize := int64(le.Uint64(h[72:])), le.Uint32(h[80:]), le.Uint32(h[84:])
	if esize < 128 || esize%8 != 0 || n == 0 || n > 1024 {
		return nil, fmt.Errorf("GPT entry array of %d entries of %d bytes", n, esize)
	}
	ents := make([]byte, int64(n)*int64(esize))
	if _, err := r.ReadAt(ents, entLBA*ss); err != nil {
		return nil, fmt.Errorf("reading the GPT entries: %w", err)
	}
	if crc32.ChecksumIEEE(ents) != le.Uint32(h[88:]) {
		return nil, errors.New("GPT entry array checksum mismatch")
	}
	t := &Table{Type: "gpt", DiskID: guidString(h[56:72]), SectorSize: int(ss)}
	for i := range int(n) {
		e := ents[i*int(esize) : (i+1)*int(esize)]
		if isZero(e[:16]) { // unused entry: type GUID zero
			continue
		}
		first, last := int64(le.Uint64(e[32:])), int64(le.Uint64(e[40:]))
		t.Partitions = append(t.Partitions, Partition{
			Number: i + 1,
			UUID:   guidString(e[16:32]),
			Label:  utf16Name(e[56:128]),
			Start:  first * ss,
			Size:   (last - first + 1) * ss,
		})
	}
	return t, nil
}

// guidString formats an on-disk GUID: the first three fields are stored
// little-endian, the last two as bytes.
func guidString(b []byte) string {
	le := binary.LittleEndian
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", le.Uint32(b), le.Uint16(b[4:]), le.Uint16(b[6:]), b[8:10], b[10:16])
}

func utf16Name(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		c := binary.LittleEndian.Uint16(b[i:])
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// mbrEntry is one 16-byte partition entry; start is relative to the
// sector the entry's table is in (or to the extended partition for the
// link entry of an EBR).
type mbrEntry struct {
	typ         byte
	start, size int64 // sectors
}

func mbrEntries(sector []byte) [4]mbrEntry {
	var es [4]mbrEntry
	for i := range es {
		e := sector[446+16*i:]
		es[i] = mbrEntry{e[4], int64(binary.LittleEndian.Uint32(e[8:])), int64(binary.LittleEndian.Uint32(e[12:]))}
	}
	return es
}

// isMBR checks the boot signature and, like the kernel, that every boot
// indicator is 0x00 or 0x80, which tells an MBR from a FAT boot sector.
func isMBR(sector []byte) bool {
	if sector[510] != 0x55 || sector[511] != 0xaa {
		return false
	}
	for i := range 4 {
		if b := sector[446+16*i]; b != 0 && b != 0x80 {
			return false
		}
	}
	return true
}

func hasProtective(mbr []byte) bool {
	for _, e := range mbrEntries(mbr) {
		if e.typ == 0xee {
			return true
		}
	}
	return false
}

func isExtended(typ byte) bool { return typ == 0x05 || typ == 0x0f || typ == 0x85 }

// maxLogical bounds the EBR chain, which a damaged disk can make circular.
const maxLogical = 128

func readMBR(r io.ReaderAt, mbr []byte, ss int64) (*Table, error) {
	sig := binary.LittleEndian.Uint32(mbr[440:])
	t := &Table{Type: "dos", DiskID: fmt.Sprintf("%08x", sig), SectorSize: int(ss)}
	add := func(num int, start, size int64) {
		t.Partitions = append(t.Partitions, Partition{
			Number: num, UUID: fmt.Sprintf("%08x-%02x", sig, num), Start: start * ss, Size: size * ss,
		})
	}
	var ext int64 = -1
	for i, e := range mbrEntries(mbr) {
		if e.typ == 0 || e.size == 0 {
			continue
		}
		// The kernel makes a device for the extended partition too (a
		// stub of 1 KiB), so it gets its number and PARTUUID like the rest.
		add(i+1, e.start, e.size)
		if isExtended(e.typ) && ext < 0 {
			ext = e.start
		}
	}
	if ext < 0 {
		return t, nil
	}
	num, cur := 5, ext
	sector := make([]byte, 512)
	for range maxLogical {
		if _, err := r.ReadAt(sector, cur*ss); err != nil {
			return nil, fmt.Errorf("reading the EBR at sector %d: %w", cur, err)
		}
		if sector[510] != 0x55 || sector[511] != 0xaa {
			break
		}
		es := mbrEntries(sector)
		if es[0].typ != 0 && es[0].size != 0 {
			add(num, cur+es[0].start, es[0].size)
			num++
		}
		if !isExtended(es[1].typ) || es[1].start == 0 {
			break
		}
		cur = ext + es[1].start
	}
	return t, nil
}

// Describe lists the partitions of the table of disk for an error message.
func (t *Table) Describe(disk string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s table, disk id %s", disk, t.Type, t.DiskID)
	for _, p := range t.Partitions {
		fmt.Fprintf(&b, "; partition %d PARTUUID=%s", p.Number, p.UUID)
		if t.Type == "gpt" {
			fmt.Fprintf(&b, " PARTLABEL=%q", p.Label)
		}
	}
	return b.String()
}
