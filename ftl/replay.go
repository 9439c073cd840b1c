package ftl

import (
	"fmt"

	"github.com/fsbench/fsbench/wire/blocktrace"
)

// writeBuffer is the device's volatile buffer of one page of host data:
// the sectors the host wrote into one logical page since it was buffered.
type writeBuffer struct {
	lp      int32 // -1: empty
	written []uint64
	count   int // sectors written
}

func newWriteBuffer(sectorsPerPage int) writeBuffer {
	return writeBuffer{lp: -1, written: make([]uint64, (sectorsPerPage+63)/64)}
}

func (b *writeBuffer) reset(lp int32) {
	b.lp, b.count = lp, 0
	clear(b.written)
}

// add marks sectors [off, off+n) of the page written.
func (b *writeBuffer) add(off, n int) {
	for s := off; s < off+n; s++ {
		w, bit := s/64, uint64(1)<<(s%64)
		if b.written[w]&bit == 0 {
			b.written[w] |= bit
			b.count++
		}
	}
}

// Why a partial page is programmed.
type cause int

const (
	causeFull cause = iota
	causeFlush
	causePartial
)

// CheckTrace checks that every record lies within the part of the logical
// space the trace may use, and names the first that does not.
func (m *Model) CheckTrace(rs []blocktrace.Record) error {
	for i, r := range rs {
		if r.Op != blocktrace.Flush && r.End() > m.g.TraceSectors {
			return fmt.Errorf("ftl: record %d (%v) ends at sector %d, beyond the %d sectors the model leaves to the trace (logical capacity %d bytes, the last %d pages static data)",
				i, r, r.End(), m.g.TraceSectors, m.s.LogicalBytes, m.g.StaticPages)
		}
	}
	return nil
}

// Replay applies a trace to the device and returns what it did. Reads are
// ignored. When the trace ends, the device writes its buffered page back,
// as a device does when the host falls idle: a trace replayed again does
// not carry a page over. A trace that leaves its space is refused before
// anything is applied.
func (m *Model) Replay(rs []blocktrace.Record) (Counters, error) {
	if m.err != nil {
		return Counters{}, m.err
	}
	if err := m.CheckTrace(rs); err != nil {
		return Counters{}, err
	}
	start := m.c
	for i, r := range rs {
		if err := m.apply(r); err != nil {
			m.err = fmt.Errorf("ftl: record %d (%v): %w", i, r, err)
			return Counters{}, m.err
		}
	}
	if err := m.writeBack(causePartial); err != nil {
		m.err = fmt.Errorf("ftl: at the trace's end: %w", err)
		return Counters{}, m.err
	}
	return m.c.Sub(start), nil
}

func (m *Model) apply(r blocktrace.Record) error {
	switch r.Op {
	case blocktrace.Write:
		m.c.HostBytes += r.Bytes()
		if r.PreFlush {
			m.c.Flushes++
			if err := m.writeBack(causeFlush); err != nil {
				return err
			}
		}
		if err := m.write(r.Sector, r.End()); err != nil {
			return err
		}
		if r.FUA {
			return m.writeBack(causeFlush)
		}
	case blocktrace.Flush:
		m.c.Flushes++
		return m.writeBack(causeFlush)
	case blocktrace.Discard:
		m.c.DiscardBytes += r.Bytes()
		m.discard(r.Sector, r.End())
	}
	return nil
}

// write puts host sectors [s, e) through the buffer, page by page. Without
// a buffer, each page is programmed at once.
func (m *Model) write(s, e uint64) error {
	spp := uint64(m.g.SectorsPerPage)
	for s < e {
		lp, off := int32(s/spp), int(s%spp)
		n := int(min(spp-uint64(off), e-s))
		s += uint64(n)
		if m.buf.lp != lp {
			if err := m.writeBack(causePartial); err != nil {
				return err
			}
			m.buf.reset(lp)
		}
		m.buf.add(off, n)
		if m.buf.count == m.g.SectorsPerPage || m.s.NoWriteBuffer {
			if err := m.writeBack(causePartial); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeBack programs the buffered page, if any, counting why when the
// host had not written all of it.
func (m *Model) writeBack(why cause) error {
	if m.buf.lp < 0 {
		return nil
	}
	lp, written := m.buf.lp, m.buf.count
	m.buf.lp = -1
	if err := m.programHost(lp); err != nil {
		return err
	}
	if missing := int64(m.g.SectorsPerPage-written) * blocktrace.SectorSize; missing > 0 {
		if why == causeFlush {
			m.c.FlushPrograms++
			m.c.FlushPaddingBytes += missing
		} else {
			m.c.PartialPrograms++
			m.c.PartialPageBytes += missing
		}
	}
	return nil
}

// discard unmaps the whole pages of [s, e); the partial pages at its ends
// keep their data, as a page-mapped FTL keeps it. A buffered page that is
// discarded whole is dropped.
func (m *Model) discard(s, e uint64) {
	spp := uint64(m.g.SectorsPerPage)
	for lp := (s + spp - 1) / spp; lp < e/spp; lp++ {
		if m.buf.lp == int32(lp) {
			m.buf.lp = -1
		}
		m.unmap(int32(lp))
	}
}
