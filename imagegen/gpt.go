package imagegen

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/fsbench/fsbench/plan"
)

// The GPT as UEFI 2.10 §5.3 lays it out: a 92-byte header in a sector of
// its own, and an array of 128 entries of 128 bytes.
const (
	gptHeaderSize   = 92
	gptEntries      = 128
	gptEntrySize    = 128
	gptArrayBytes   = gptEntries * gptEntrySize
	gptRevision     = 0x00010000
	gptNameUnits    = 36 // UTF-16 code units in an entry's name
	gptProtectiveID = 0xee
)

// gptLegacyBootable is attribute bit 2, "legacy BIOS bootable", which
// some firmware and U-Boot's distro boot read on GPT disks.
const gptLegacyBootable = 1 << 2

// gptLayout is where img's GPT structures lie: img.GPT, or, for a plan
// that does not say, the layout every partitioning tool writes by
// default: the array right after the primary header, the backup at the
// end, everything between usable.
func gptLayout(img plan.Image) plan.GPT {
	if img.GPT != nil {
		return *img.GPT
	}
	arr := (gptArrayBytes + img.SectorSize - 1) / img.SectorSize
	last := img.Size/img.SectorSize - 1
	return plan.GPT{
		EntriesSector:  2,
		EntriesSectors: arr,
		FirstUsable:    2 + arr,
		LastUsable:     last - arr - 1,
		Backup:         true,
	}
}

// writeGPT writes img's GPT: the protective or hybrid MBR in sector 0,
// of which it writes only bytes 446-511 (the boot code before them may
// come from a raw region), the primary header at sector 1, the entry
// array where the layout puts it, and when the layout has one, the backup
// array and header at the end of the image.
func writeGPT(f io.WriterAt, img plan.Image) error {
	ss := img.SectorSize
	if ss != 512 && ss != 4096 {
		return fmt.Errorf("GPT with %d-byte sectors: only 512 and 4096 are supported", ss)
	}
	g := gptLayout(img)
	last := img.Size/ss - 1
	if want := (gptArrayBytes + ss - 1) / ss; g.EntriesSectors != want {
		return fmt.Errorf("GPT entry array of %d sectors: %d entries of %d bytes take %d", g.EntriesSectors, gptEntries, gptEntrySize, want)
	}
	backupArray := last - g.EntriesSectors
	end := last + 1
	if g.Backup {
		end = backupArray
	}
	if g.EntriesSector < 2 || g.EntriesSector+g.EntriesSectors > end {
		return fmt.Errorf("GPT entry array at sector %d does not fit between the header and sector %d", g.EntriesSector, end)
	}
	disk, err := parseGUID(img.DiskID)
	if err != nil {
		return fmt.Errorf("disk id: %w", err)
	}
	array, err := gptArray(img.Partitions)
	if err != nil {
		return err
	}
	sector0, err := gptMBR(img, g, last)
	if err != nil {
		return err
	}
	arrayCRC := crc32.ChecksumIEEE(array)
	// Without a backup, AlternateLBA still names the last sector, where
	// UEFI puts the backup header, rather than 1, the primary itself, as
	// genimage writes. Both were tried on the same image (util-linux
	// 2.38.1, gdisk 1.0.9): with the last sector, sfdisk --verify says
	// "No errors detected" after noting "The backup GPT table is corrupt,
	// but the primary appears OK", and sgdisk -v finds only the backup's
	// CRCs wrong (1 problem); with 1, sfdisk --verify reads the primary
	// as the backup and fails ("MyLBA mismatch with real position at
	// backup header. 1 error detected."), fdisk and sfdisk -d say "The
	// backup GPT table is not on the end of the device", and sgdisk -v
	// finds 3 problems (backup not at the end, its array overlapping its
	// header, the disk smaller than claimed). sfdisk -d and fdisk -l read
	// the partitions either way.
	primary := gptHeader(g, disk, 1, last, g.EntriesSector, arrayCRC, ss)
	writes := []sectorWrite{{sector0, 446}, {primary, ss}, {array, g.EntriesSector * ss}}
	if g.Backup {
		backup := gptHeader(g, disk, last, 1, backupArray, arrayCRC, ss)
		writes = append(writes, sectorWrite{array, backupArray * ss}, sectorWrite{backup, last * ss})
	}
	for _, w := range writes {
		if _, err := f.WriteAt(w.b, w.off); err != nil {
			return err
		}
	}
	return nil
}

// sectorWrite is bytes to write at an offset of the image.
type sectorWrite struct {
	b   []byte
	off int64
}

// gptHeader encodes a header for the sector my, whose twin is at alt and
// whose array begins at entries, zero-padded to a whole sector.
func gptHeader(g plan.GPT, disk [16]byte, my, alt, entries int64, arrayCRC uint32, ss int64) []byte {
	b := make([]byte, ss)
	copy(b[0:8], "EFI PART")
	le := binary.LittleEndian
	le.PutUint32(b[8:], gptRevision)
	le.PutUint32(b[12:], gptHeaderSize)
	le.PutUint64(b[24:], uint64(my))
	le.PutUint64(b[32:], uint64(alt))
	le.PutUint64(b[40:], uint64(g.FirstUsable))
	le.PutUint64(b[48:], uint64(g.LastUsable))
	copy(b[56:72], disk[:])
	le.PutUint64(b[72:], uint64(entries))
	le.PutUint32(b[80:], gptEntries)
	le.PutUint32(b[84:], gptEntrySize)
	le.PutUint32(b[88:], arrayCRC)
	le.PutUint32(b[16:], crc32.ChecksumIEEE(b[:gptHeaderSize]))
	return b
}

// gptArray encodes the entry array: partition n in entry n-1, whatever
// the order of the partitions on the disk, unused entries zero.
func gptArray(parts []plan.Partition) ([]byte, error) {
	b := make([]byte, gptArrayBytes)
	used := make(map[int]string)
	for _, p := range parts {
		if p.Number < 1 || p.Number > gptEntries {
			return nil, fmt.Errorf("partition %s: number %d is not 1-%d", p.Name, p.Number, gptEntries)
		}
		if other, ok := used[p.Number]; ok {
			return nil, fmt.Errorf("partitions %s and %s have the same number %d", other, p.Name, p.Number)
		}
		used[p.Number] = p.Name
		e := b[(p.Number-1)*gptEntrySize:][:gptEntrySize]
		typ, err := parseGUID(p.Type)
		if err != nil {
			return nil, fmt.Errorf("partition %s: type: %w", p.Name, err)
		}
		id, err := parseGUID(p.UUID)
		if err != nil {
			return nil, fmt.Errorf("partition %s: uuid: %w", p.Name, err)
		}
		name := utf16.Encode([]rune(p.Label))
		if len(name) > gptNameUnits {
			return nil, fmt.Errorf("partition %s: name %q is %d UTF-16 units, more than the %d of a GPT entry", p.Name, p.Label, len(name), gptNameUnits)
		}
		copy(e[0:16], typ[:])
		copy(e[16:32], id[:])
		binary.LittleEndian.PutUint64(e[32:], uint64(p.StartSector))
		binary.LittleEndian.PutUint64(e[40:], uint64(p.EndSector))
		var attrs uint64
		if p.Bootable {
			attrs |= gptLegacyBootable
		}
		binary.LittleEndian.PutUint64(e[48:], attrs)
		for i, u := range name {
			binary.LittleEndian.PutUint16(e[56+2*i:], u)
		}
	}
	return b, nil
}

// gptMBR returns bytes 446-511 of sector 0: a protective MBR, or a hybrid
// one when the layout lists partitions to mirror.
func gptMBR(img plan.Image, g plan.GPT, last int64) ([]byte, error) {
	var entries [4][]byte
	if len(g.Hybrid) == 0 {
		// UEFI 2.10 table 5-4: one entry from sector 1 over the whole
		// disk, or 0xFFFFFFFF sectors of it; CHS 0/0/2 to the last
		// sector's, 0xFFFFFF when it has none. sgdisk writes the same.
		size := min(last, 0xffffffff)
		e := entryBytes(mbrEntry(false, gptProtectiveID, 1, size), 1)
		if last/(chsHeads*chsSectors) > chsMaxCylinder {
			e[5], e[6], e[7] = 0xff, 0xff, 0xff
		}
		entries[0] = e
		return mbrTail(entries), nil
	}
	if len(g.Hybrid) > 3 {
		return nil, fmt.Errorf("hybrid MBR of %d partitions: it holds 3 besides its 0xEE entry", len(g.Hybrid))
	}
	byName := make(map[string]plan.Partition, len(img.Partitions))
	for _, p := range img.Partitions {
		byName[p.Name] = p
	}
	for i, h := range g.Hybrid {
		p, ok := byName[h.Partition]
		if !ok {
			return nil, fmt.Errorf("hybrid MBR: no partition %q", h.Partition)
		}
		typ, err := mbrType(h.Type)
		if err != nil {
			return nil, fmt.Errorf("hybrid MBR entry %s: %w", h.Partition, err)
		}
		if p.StartSector > 0xffffffff || p.Sectors > 0xffffffff {
			return nil, fmt.Errorf("hybrid MBR entry %s: sectors %d+%d do not fit in 32 bits", h.Partition, p.StartSector, p.Sectors)
		}
		entries[i] = entryBytes(mbrEntry(h.Bootable, typ, p.StartSector, p.Sectors), p.StartSector)
	}
	// As genimage does: the 0xEE entry after the mirrored ones covers
	// the primary header and the array only, from sector 1.
	entries[len(g.Hybrid)] = entryBytes(mbrEntry(false, gptProtectiveID, 1, g.EntriesSector+g.EntriesSectors-1), 1)
	return mbrTail(entries), nil
}

// parseGUID parses the textual form of a GUID into the mixed-endian bytes
// GPT stores: the first three groups little-endian, the last two as
// written.
func parseGUID(s string) ([16]byte, error) {
	var g [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return g, fmt.Errorf("%q is not a GUID", s)
	}
	raw, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		return g, fmt.Errorf("%q is not a GUID", s)
	}
	copy(g[:], raw)
	g[0], g[1], g[2], g[3] = raw[3], raw[2], raw[1], raw[0]
	g[4], g[5] = raw[5], raw[4]
	g[6], g[7] = raw[7], raw[6]
	return g, nil
}
