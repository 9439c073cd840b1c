package imagegen

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/diskfs/go-diskfs/partition/mbr"

	"github.com/fsbench/fsbench/plan"
)

// writeTable writes the partition table of img into f, which already has
// the image's size.
func writeTable(f *os.File, img plan.Image) error {
	if img.Table == "gpt" {
		return writeGPT(f, img)
	}
	return writeMBR(f, img)
}

// gptLegacyBootable is attribute bit 2, "legacy BIOS bootable", which
// some firmware and U-Boot's distro boot read on GPT disks.
const gptLegacyBootable = 1 << 2

func writeGPT(f *os.File, img plan.Image) error {
	t := &gpt.Table{
		LogicalSectorSize:  int(img.SectorSize),
		PhysicalSectorSize: int(img.SectorSize),
		GUID:               img.DiskID,
		ProtectiveMBR:      true,
	}
	for _, p := range img.Partitions {
		gp := &gpt.Partition{
			Index: p.Number,
			Start: uint64(p.StartSector),
			End:   uint64(p.EndSector),
			Size:  uint64(p.Size),
			Type:  gpt.Type(strings.ToUpper(p.Type)),
			Name:  p.Label,
			GUID:  p.UUID,
		}
		if p.Bootable {
			gp.Attributes |= gptLegacyBootable
		}
		t.Partitions = append(t.Partitions, gp)
	}
	return t.Write(unsyncedFile{f}, img.Size)
}

// writeMBR writes the primary table with go-diskfs, then what it does not
// write: the disk signature and the chain of EBRs that holds logical
// partitions.
func writeMBR(f *os.File, img plan.Image) error {
	t := &mbr.Table{LogicalSectorSize: int(img.SectorSize), PhysicalSectorSize: int(img.SectorSize)}
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
		t.Partitions = append(t.Partitions, mbrEntry(p.Bootable, typ, p.StartSector, p.Sectors))
	}
	if e := img.Extended; e != nil {
		typ, err := mbrType(e.Type)
		if err != nil {
			return err
		}
		t.Partitions = append(t.Partitions, mbrEntry(false, typ, e.StartSector, e.Sectors))
	}
	if err := t.Write(unsyncedFile{f}, img.Size); err != nil {
		return err
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
	return writeEBRs(f, img, logical)
}

// writeEBRs writes one extended boot record before each logical
// partition: its first entry describes the partition relative to the
// EBR, its second links to the next EBR relative to the extended
// partition's start.
func writeEBRs(f *os.File, img plan.Image, logical []plan.Partition) error {
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
	const heads, sectors = 255, 63
	c := lba / (heads * sectors)
	if c > 1023 {
		return 0xff, 0xfe, 0xff
	}
	h := (lba / sectors) % heads
	s := lba%sectors + 1
	return byte(c), byte(h), byte(s) | byte((c>>8)&0x3)<<6
}

// unsyncedFile hides Sync from go-diskfs, which syncs after each write:
// the image is a temporary file synced once when complete.
type unsyncedFile struct{ f *os.File }

func (u unsyncedFile) Stat() (fs.FileInfo, error)                { return u.f.Stat() }
func (u unsyncedFile) Read(b []byte) (int, error)                { return u.f.Read(b) }
func (u unsyncedFile) ReadAt(b []byte, off int64) (int, error)   { return u.f.ReadAt(b, off) }
func (u unsyncedFile) WriteAt(b []byte, off int64) (int, error)  { return u.f.WriteAt(b, off) }
func (u unsyncedFile) Seek(off int64, whence int) (int64, error) { return u.f.Seek(off, whence) }
func (u unsyncedFile) Close() error                              { return nil }
