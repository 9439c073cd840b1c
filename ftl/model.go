package ftl

import (
	"container/heap"
	"errors"
	"fmt"
)

// Counters count what the device did; a Model's grow from its creation,
// and the difference of two readings (Sub) is what happened in between.
type Counters struct {
	HostBytes    int64 // bytes the trace wrote, as it says
	DiscardBytes int64
	Flushes      int64 // flush requests and preflushes
	HostPrograms int64 // NAND page programs of host data
	GCPrograms   int64 // NAND page programs of garbage collection's copies
	NANDBytes    int64 // bytes programmed: all programs times the page size
	Erases       int64
	// FlushPrograms are host programs a flush or a FUA write forced
	// before the page was complete; FlushPaddingBytes are the bytes of
	// those pages the host had not written since the page was buffered
	// (padding, or older data merged back: programmed again only because
	// of the flush).
	FlushPrograms     int64
	FlushPaddingBytes int64
	// PartialPrograms are the other host programs of incomplete pages: a
	// write moved on to another page, the trace ended, or the device has
	// no write buffer; PartialPageBytes are the bytes the host had not
	// written in them (read-modify-write).
	PartialPrograms  int64
	PartialPageBytes int64
}

// WriteAmplification is NAND programmed bytes per host byte written; zero
// when the host wrote nothing.
func (c Counters) WriteAmplification() float64 {
	if c.HostBytes == 0 {
		return 0
	}
	return float64(c.NANDBytes) / float64(c.HostBytes)
}

// Sub is what happened between reading o and reading c.
func (c Counters) Sub(o Counters) Counters { return c.plus(o, -1) }

// Add is two spans of counting together.
func (c Counters) Add(o Counters) Counters { return c.plus(o, 1) }

func (c Counters) plus(o Counters, k int64) Counters {
	return Counters{
		HostBytes:         c.HostBytes + k*o.HostBytes,
		DiscardBytes:      c.DiscardBytes + k*o.DiscardBytes,
		Flushes:           c.Flushes + k*o.Flushes,
		HostPrograms:      c.HostPrograms + k*o.HostPrograms,
		GCPrograms:        c.GCPrograms + k*o.GCPrograms,
		NANDBytes:         c.NANDBytes + k*o.NANDBytes,
		Erases:            c.Erases + k*o.Erases,
		FlushPrograms:     c.FlushPrograms + k*o.FlushPrograms,
		FlushPaddingBytes: c.FlushPaddingBytes + k*o.FlushPaddingBytes,
		PartialPrograms:   c.PartialPrograms + k*o.PartialPrograms,
		PartialPageBytes:  c.PartialPageBytes + k*o.PartialPageBytes,
	}
}

// Block states.
const (
	blockFree = iota
	blockOpen
	blockClosed
)

// frontier is an open block being programmed page after page.
type frontier struct {
	block int32 // -1: none
	next  int   // next page to program in it
}

// Model is the simulated device: a page-mapped FTL with greedy garbage
// collection. It is deterministic; it is not safe for concurrent use.
type Model struct {
	s   Settings
	g   Geometry
	l2p []int32 // logical page -> physical page; -1: unmapped
	p2l []int32 // physical page -> logical page; -1: free or stale
	// per erase block
	valid  []int32
	erases []int64
	state  []uint8
	free   freeBlocks
	host   frontier
	gc     frontier
	buf    writeBuffer
	c      Counters
	err    error // sticky: a model that failed is inconsistent
}

// New makes a fresh device: every block erased once at the factory (erase
// count zero), nothing mapped.
func New(s Settings) (*Model, error) {
	g, err := s.Validate()
	if err != nil {
		return nil, fmt.Errorf("ftl: %w", err)
	}
	m := &Model{
		s: s.withDefaults(), g: g,
		l2p:    make([]int32, g.LogicalPages),
		p2l:    make([]int32, g.PhysicalPages),
		valid:  make([]int32, g.Blocks),
		erases: make([]int64, g.Blocks),
		state:  make([]uint8, g.Blocks),
		host:   frontier{block: -1},
		gc:     frontier{block: -1},
		buf:    newWriteBuffer(g.SectorsPerPage),
	}
	for i := range m.l2p {
		m.l2p[i] = -1
	}
	for i := range m.p2l {
		m.p2l[i] = -1
	}
	m.free = freeBlocks{erases: m.erases, blocks: make([]int32, g.Blocks)}
	for b := range m.free.blocks {
		m.free.blocks[b] = int32(b)
	}
	heap.Init(&m.free)
	return m, nil
}

// Settings are the model's settings, defaults filled in.
func (m *Model) Settings() Settings { return m.s }

// Geometry is the model's geometry.
func (m *Model) Geometry() Geometry { return m.g }

// Counters are the model's counters since its creation.
func (m *Model) Counters() Counters { return m.c }

// EraseCounts is a copy of every erase block's erase count.
func (m *Model) EraseCounts() []int64 { return append([]int64(nil), m.erases...) }

// programHost maps logical page lp to a new page of the host's open
// block. The old copy is made stale first, so that garbage collection,
// which taking a block may run, does not copy it.
func (m *Model) programHost(lp int32) error {
	m.unmap(lp)
	p, err := m.take(&m.host, true)
	if err != nil {
		return err
	}
	m.place(lp, p)
	m.c.HostPrograms++
	m.c.NANDBytes += m.s.PageSize
	return nil
}

func (m *Model) place(lp, p int32) {
	m.p2l[p], m.l2p[lp] = lp, p
	m.valid[int(p)/m.g.PagesPerBlock]++
}

func (m *Model) unmap(lp int32) {
	if p := m.l2p[lp]; p >= 0 {
		m.p2l[p], m.l2p[lp] = -1, -1
		m.valid[int(p)/m.g.PagesPerBlock]--
	}
}

// take returns the next free page of an open block, opening a new block
// when it is full. The host's block opens only with more than the reserve
// free, collecting garbage until then; GC's block takes from the reserve.
func (m *Model) take(f *frontier, host bool) (int32, error) {
	if f.block < 0 || f.next == m.g.PagesPerBlock {
		if f.block >= 0 {
			m.state[f.block] = blockClosed
			f.block = -1
		}
		for host && m.free.Len() <= m.s.GCFreeBlocks {
			if err := m.collect(); err != nil {
				return 0, err
			}
		}
		if m.free.Len() == 0 {
			return 0, errors.New("ftl: no free erase block left (the model's reserve is broken)")
		}
		b := heap.Pop(&m.free).(int32)
		m.state[b] = blockOpen
		f.block, f.next = b, 0
	}
	p := f.block*int32(m.g.PagesPerBlock) + int32(f.next)
	f.next++
	return p, nil
}

// collect reclaims one erase block: the victim is the closed block with
// the fewest valid pages, ties to the least erased, then the lowest
// index. Its valid pages go to GC's open block, then it is erased.
func (m *Model) collect() error {
	victim := int32(-1)
	for b := range m.valid {
		if m.state[b] != blockClosed {
			continue
		}
		if victim < 0 || m.valid[b] < m.valid[victim] || (m.valid[b] == m.valid[victim] && m.erases[b] < m.erases[victim]) {
			victim = int32(b)
		}
	}
	if victim < 0 || int(m.valid[victim]) == m.g.PagesPerBlock {
		return errors.New("ftl: no erase block to reclaim: every closed block is full of valid data")
	}
	first := victim * int32(m.g.PagesPerBlock)
	for p := first; p < first+int32(m.g.PagesPerBlock); p++ {
		lp := m.p2l[p]
		if lp < 0 {
			continue
		}
		np, err := m.take(&m.gc, false)
		if err != nil {
			return err
		}
		m.p2l[p] = -1
		m.valid[victim]--
		m.place(lp, np)
		m.c.GCPrograms++
		m.c.NANDBytes += m.s.PageSize
	}
	m.erases[victim]++
	m.c.Erases++
	m.state[victim] = blockFree
	heap.Push(&m.free, victim)
	return nil
}

// freeBlocks is a heap of free erase blocks, least erased first, then by
// index: taking the least-worn free block is the dynamic wear leveling
// every FTL does, and the order keeps the model deterministic.
type freeBlocks struct {
	erases []int64
	blocks []int32
}

func (h *freeBlocks) Len() int { return len(h.blocks) }
func (h *freeBlocks) Less(i, j int) bool {
	a, b := h.blocks[i], h.blocks[j]
	return h.erases[a] < h.erases[b] || (h.erases[a] == h.erases[b] && a < b)
}
func (h *freeBlocks) Swap(i, j int) { h.blocks[i], h.blocks[j] = h.blocks[j], h.blocks[i] }
func (h *freeBlocks) Push(x any)    { h.blocks = append(h.blocks, x.(int32)) }
func (h *freeBlocks) Pop() any {
	x := h.blocks[len(h.blocks)-1]
	h.blocks = h.blocks[:len(h.blocks)-1]
	return x
}
