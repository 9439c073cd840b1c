// Package blocktrace is the format of a block device's request trace: every
// request the block layer completed on the partition under test, as the
// runner records it from the kernel's block:block_rq_complete event and
// sends it to the host inside a result, where the flash translation layer
// model (package ftl) turns it into what the NAND would see.
//
// A trace travels as a string attribute of a JSON result, over a serial
// line in checksummed frames, so its size matters. The binary stream is
//
//	header  "BTRC" | version (1 byte, 1) | flags (1 byte; bit 0: times follow)
//	record  tag (1 byte) | [sector delta] | [sectors] | [time delta]
//	end     tag 0 | record count (uvarint)
//
// where the tag holds the operation in bits 0-2 (1 write, 2 discard,
// 3 flush, 4 read), FUA in bit 3, preflush in bit 4, "starts where the
// previous data record ended" in bit 5 (no sector delta follows), "as long
// as the previous data record" in bit 6 (no length follows), and bit 7 is
// zero. The sector delta is a zigzag varint from the end of the previous
// data record, the length an uvarint of sectors, the time delta a zigzag
// varint of microseconds from the previous record. A flush has neither
// sector nor length.
//
// Why this shape: a filesystem's requests are mostly sequential or near
// the previous one, and of few sizes, so a record is most often its tag
// alone, or a tag and a one- or two-byte delta; a byte of tag keeps the
// request's kind and flags together; and deflate, in the string form
// (String, "blocktrace/1:" + base64 of the deflated stream), squeezes the
// repetition that is left. The end mark with its count makes a stream cut
// at a record boundary an error, not a shorter trace. The encoding is
// canonical (minimal varints, the bits used whenever they apply), so a
// decoded trace re-encodes to the same bytes.
//
// Decoding is strict: a wrong magic or version, a truncated stream, an
// impossible value (an unknown operation, a zero-length write, a sector
// past MaxSector, flags on a flush) is an error that names the record,
// never a silently different trace.
//
// ParseLine turns one line of the kernel's text trace into a record; it
// is pure, so it lives with the format although only the runner calls it.
//
// It is part of the wire: it links only the standard library, and the
// runner links it, so it stays small.
package blocktrace
