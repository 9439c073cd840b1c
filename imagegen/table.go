package imagegen

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/diskfs/go-diskfs/partition/mbr"

	"github.com/fsbench/fsbench/plan"
)

// writeTable writes the partition table of img into f, which already has
// the image's size; an image with table "none" has none.
func writeTable(f io.WriterAt, img plan.Image) error {
	switch img.Table {
	case "gpt":
		return writeGPT(f, img)
	case "none":
		return nil // regions at offsets, which no table describes
	}
	return writeMBR(f, img)
}

// writeMBR writes the MBR: primary partition n in entry n-1, the
// extended partition in the entry of its slot, other entries zero, the
// disk signature at 440; then the chain of EBRs that holds the logical
// partitions. Bytes 0-439, boot code a raw region may have put there,
// are not touched.
func writeMBR(f io.WriterAt, img plan.Image) error {
	var entries [4][]byte
	var owners [4]string
	put := func(slot int, name string, p *mbr.Partition) error {
		if slot < 1 || slot > 4 {
			return fmt.Errorf("%s: MBR entry %d is not 1-4", name, slot)
		}
		if owners[slot-1] != "" {
			return fmt.Errorf("%s and %s both in MBR entry %d", owners[slot-1], name, slot)
		}
		owners[slot-1] = name
		entries[slot-1] = entryBytes(p, int64(p.Start))
		return nil
	}
	var logical []plan.Partition
	for _, p := range img.Partitions {
		if p.Logical {
			logical = append(logical, p)
			continue
		}
		typ, err := mbrType(p.Type)
		if err != nil {
			return err
		}
		if err := put(p.Number, "partition "+p.Name, mbrEntry(p.Bootable, typ, p.StartSector, p.Sectors)); err != nil {
			return err
		}
	}
	if e := img.Extended; e != nil {
		typ, err := mbrType(e.Type)
		if err != nil {
			return err
		}
		slot := e.Slot
		if slot == 0 {
			// A plan from before Slot: the first entry the primary
			// partitions leave, where go-diskfs's table put it.
			for slot = 1; slot <= 4 && owners[slot-1] != ""; slot++ {
			}
		}
		if err := put(slot, "the extended partition", mbrEntry(false, typ, e.StartSector, e.Sectors)); err != nil {
			return err
		}
	}
	if len(logical) > 0 && img.Extended == nil {
		return fmt.Errorf("logical partition %s without an extended partition", logical[0].Name)
	}
	sig, err := strconv.ParseUint(strings.TrimPrefix(img.DiskID, "0x"), 16, 32)
	if err != nil {
		return fmt.Errorf("disk id %q: %w", img.DiskID, err)
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(sig))
	if _, err := f.WriteAt(b[:], 440); err != nil {
		return err
	}
	if _, err := f.WriteAt(mbrTail(entries), 446); err != nil {
		return err
	}
	return writeEBRs(f, img, logical)
}

// mbrTail encodes bytes 446-511 of an MBR: the four entries, nil ones
// zero, and the boot signature.
func mbrTail(entries [4][]byte) []byte {
	b := make([]byte, 66)
	for i, e := range entries {
		copy(b[16*i:], e)
	}
	b[64], b[65] = 0x55, 0xaa
	return b
}

// writeEBRs writes one extended boot record before each logical
// partition: its first entry describes the partition relative to the
// EBR, its second links to the next EBR relative to the extended
// partition's start.
func writeEBRs(f io.WriterAt, img plan.Image, logical []plan.Partition) error {
	if len(logical) == 0 {
		return nil
	}
	ext := img.Extended.StartSector
	linkType, err := mbrType(img.Extended.Type)
	if err != nil {
		return err
	}
	for i, p := range logical {
		typ, err := mbrType(p.Type)
		if err != nil {
			return err
		}
		sector := make([]byte, img.SectorSize)
		copy(sector[446:], entryBytes(mbrEntry(false, typ, p.StartSector-p.EBRSector, p.Sectors), p.StartSector))
		if i+1 < len(logical) {
			next := logical[i+1]
			link := mbrEntry(false, linkType, next.EBRSector-ext, next.StartSector+next.Sectors-next.EBRSector)
			copy(sector[462:], entryBytes(link, next.EBRSector))
		}
		sector[510], sector[511] = 0x55, 0xaa
		if _, err := f.WriteAt(sector, p.EBRSector*img.SectorSize); err != nil {
			return err
		}
	}
	return nil
}

func mbrType(s string) (mbr.Type, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 8)
	if err != nil {
		return 0, fmt.Errorf("MBR partition type %q: %w", s, err)
	}
	return mbr.Type(n), nil
}

// mbrEntry fills a partition entry, with CHS addresses computed for the
// conventional 255-head, 63-sector geometry (clamped past 8GiB as every
// partitioner does), although Linux reads only the LBA fields.
func mbrEntry(bootable bool, typ mbr.Type, start, sectors int64) *mbr.Partition {
	p := &mbr.Partition{Bootable: bootable, Type: typ, Start: uint32(start), Size: uint32(sectors)}
	p.StartCylinder, p.StartHead, p.StartSector = chs(start)
	p.EndCylinder, p.EndHead, p.EndSector = chs(start + sectors - 1)
	return p
}

// entryBytes encodes an entry whose LBA fields are relative (EBRs) while
// its CHS fields stay absolute, at absStart.
func entryBytes(p *mbr.Partition, absStart int64) []byte {
	b := make([]byte, 16)
	if p.Bootable {
		b[0] = 0x80
	}
	c, h, s := chs(absStart)
	b[1], b[2], b[3] = h, s, c
	c, h, s = chs(absStart + int64(p.Size) - 1)
	b[4] = byte(p.Type)
	b[5], b[6], b[7] = h, s, c
	binary.LittleEndian.PutUint32(b[8:12], p.Start)
	binary.LittleEndian.PutUint32(b[12:16], p.Size)
	return b
}

// chs returns the cylinder, head and sector bytes of an LBA in the
// layout MBR entries store them: the sector byte carries the cylinder's
// two high bits.
func chs(lba int64) (cyl, head, sec byte) {
	c := lba / (chsHeads * chsSectors)
	if c > chsMaxCylinder {
		return 0xff, 0xfe, 0xff
	}
	h := (lba / chsSectors) % chsHeads
	s := lba%chsSectors + 1
	return byte(c), byte(h), byte(s) | byte((c>>8)&0x3)<<6
}

// The conventional geometry, and the last cylinder CHS fields hold.
const (
	chsHeads       = 255
	chsSectors     = 63
	chsMaxCylinder = 1023
)
