// Package logwritestest writes dm-log-writes logs laid out as
// drivers/md/dm-log-writes.c lays them out, for tests of their readers; a
// log the kernel wrote is read by the runner's tests in QEMU.
package logwritestest

import (
	"bytes"
	"encoding/binary"

	"github.com/fsbench/fsbench/wire/logwrites"
)

// Builder collects entries; Bytes returns the log.
type Builder struct {
	SectorSize int
	entries    [][]byte
}

// Entry adds one entry: its header sector (with the mark's text), then
// its data.
func (b *Builder) Entry(sector, sectors, flags uint64, mark string, data []byte) {
	hdr := make([]byte, b.SectorSize)
	le := binary.LittleEndian
	le.PutUint64(hdr[0:], sector)
	le.PutUint64(hdr[8:], sectors)
	le.PutUint64(hdr[16:], flags)
	le.PutUint64(hdr[24:], uint64(len(mark)))
	copy(hdr[32:], mark)
	b.entries = append(b.entries, append(hdr, data...))
}

// Write adds a write of sectors sectors of the byte fill at sector.
func (b *Builder) Write(sector uint64, fill byte, sectors int, flags uint64) {
	b.Entry(sector, uint64(sectors), flags, "", bytes.Repeat([]byte{fill}, sectors*b.SectorSize))
}

// Flush adds a flush without data.
func (b *Builder) Flush() { b.Entry(0, 0, logwrites.FlagFlush, "", nil) }

// Mark adds a mark.
func (b *Builder) Mark(text string) { b.Entry(0, 0, logwrites.FlagMark, text, nil) }

// Bytes is the log: the super block, then the entries.
func (b *Builder) Bytes() []byte {
	sb := make([]byte, b.SectorSize)
	le := binary.LittleEndian
	le.PutUint64(sb[0:], logwrites.Magic)
	le.PutUint64(sb[8:], logwrites.Version)
	le.PutUint64(sb[16:], uint64(len(b.entries)))
	le.PutUint32(sb[24:], uint32(b.SectorSize))
	return append(sb, bytes.Join(b.entries, nil)...)
}
