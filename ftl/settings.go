package ftl

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/fsbench/fsbench/wire/blocktrace"
)

// DefaultGCFreeBlocks is the free blocks the model keeps for garbage
// collection when Settings leaves it zero: one for the open block of GC
// copies, one of margin, as small FTLs do.
const DefaultGCFreeBlocks = 2

// maxPages bounds a model's physical pages: the mapping tables index
// them with int32, and 2^31 pages of 4 KiB are 8 TiB, past any eMMC.
const maxPages = math.MaxInt32

// Settings describe the modelled device.
type Settings struct {
	// PageSize is the NAND page, the unit of programming and of the
	// mapping: a power of two from 512 bytes to 1 MiB (16 KiB is common).
	PageSize int64
	// EraseBlockSize is the erase block: a whole number (two or more) of
	// pages. It need not be a power of two: TLC parts have 3·2^n pages.
	EraseBlockSize int64
	// LogicalBytes is the capacity the trace's device exposes, a whole
	// number of 512-byte sectors.
	LogicalBytes int64
	// OverProvisioning is the spare physical capacity as a fraction of
	// the logical one (0.07, 0.28): the device has
	// ceil(logical pages × (1+OverProvisioning) / pages per block)
	// erase blocks.
	OverProvisioning float64
	// GCFreeBlocks is the reserve: before the host's open block takes a
	// free block, garbage collection runs until more than this many are
	// free. Zero means DefaultGCFreeBlocks.
	GCFreeBlocks int
	// StaticShare is the share of the logical capacity that holds valid
	// data before the trace starts and that the trace never writes: the
	// other partitions of an eMMC, the files a workload does not touch.
	// The model puts it at the end of the logical space; the trace must
	// stay below it.
	StaticShare float64
	// AgeStatic, in preconditioning, overwrites the static data at
	// random pages until garbage collection is in a steady state, as a
	// device that has lived a while; without it the static data sits in
	// full blocks, written once, sequentially.
	AgeStatic bool
	// Seed seeds the random overwrites of AgeStatic; nothing else in the
	// model is random.
	Seed uint64
	// NoWriteBuffer models a device that programs each request's pages
	// as the request completes. By default the device buffers one page
	// of host data in volatile memory and programs it when it is full,
	// when a write goes to another page, or when a flush or FUA write
	// asks for it, padding what the host did not write: the cost of
	// fsync on flash.
	NoWriteBuffer bool
}

// Geometry is what Settings make of the device.
type Geometry struct {
	PagesPerBlock  int
	SectorsPerPage int
	Blocks         int // erase blocks
	LogicalPages   int
	PhysicalPages  int
	StaticPages    int // the last StaticPages logical pages hold static data
	// TraceSectors is how far the trace may reach: the logical space
	// below the static data.
	TraceSectors uint64
}

// OverProvisioning is the model's actual spare share, (physical pages -
// logical pages) / logical pages: the asked one rounded up to whole
// erase blocks.
func (g Geometry) OverProvisioning() float64 {
	return float64(g.PhysicalPages-g.LogicalPages) / float64(g.LogicalPages)
}

// withDefaults fills the zero values that have a default.
func (s Settings) withDefaults() Settings {
	if s.GCFreeBlocks == 0 {
		s.GCFreeBlocks = DefaultGCFreeBlocks
	}
	return s
}

// Validate checks the settings and returns the geometry they give.
func (s Settings) Validate() (Geometry, error) {
	s = s.withDefaults()
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch {
	case s.PageSize < 512 || s.PageSize > 1<<20:
		bad("page size %d bytes: want 512 B to 1 MiB", s.PageSize)
	case bits.OnesCount64(uint64(s.PageSize)) != 1:
		bad("page size %d bytes is not a power of two", s.PageSize)
	}
	switch {
	case s.EraseBlockSize <= 0:
		bad("erase block size %d bytes: want a positive size", s.EraseBlockSize)
	case s.PageSize > 0 && s.EraseBlockSize <= s.PageSize:
		bad("erase block of %d bytes is not larger than the %d-byte page: an erase block holds two pages or more", s.EraseBlockSize, s.PageSize)
	case s.PageSize > 0 && s.EraseBlockSize%s.PageSize != 0:
		bad("erase block of %d bytes is not a whole number of %d-byte pages", s.EraseBlockSize, s.PageSize)
	}
	if s.LogicalBytes <= 0 || s.LogicalBytes%blocktrace.SectorSize != 0 {
		bad("logical capacity %d bytes: want a positive whole number of 512-byte sectors", s.LogicalBytes)
	}
	if !(s.OverProvisioning >= 0 && s.OverProvisioning <= 10) { // also refuses NaN
		bad("over-provisioning %v: want a fraction of the logical capacity from 0 to 10 (0.07 is 7%%)", s.OverProvisioning)
	}
	if !(s.StaticShare >= 0 && s.StaticShare < 1) {
		bad("static data share %v: want a fraction from 0 up to, not including, 1", s.StaticShare)
	}
	if s.GCFreeBlocks < 1 {
		bad("GC reserve of %d free blocks: want at least 1, for the open block of GC copies", s.GCFreeBlocks)
	}
	if len(errs) > 0 {
		return Geometry{}, errors.Join(errs...)
	}
	g := Geometry{
		PagesPerBlock:  int(s.EraseBlockSize / s.PageSize),
		SectorsPerPage: int(s.PageSize / blocktrace.SectorSize),
	}
	logical := (s.LogicalBytes + s.PageSize - 1) / s.PageSize
	physical := math.Ceil(float64(logical) * (1 + s.OverProvisioning) / float64(g.PagesPerBlock))
	if physical*float64(g.PagesPerBlock) > maxPages {
		return Geometry{}, fmt.Errorf("%.0f erase blocks of %d pages are too many pages to model (at most %d): use larger pages or model a smaller device", physical, g.PagesPerBlock, maxPages)
	}
	g.LogicalPages, g.Blocks = int(logical), int(physical)
	g.PhysicalPages = g.Blocks * g.PagesPerBlock
	// Garbage collection always finds a block with a stale page only if
	// the spare pages outnumber the reserve and the two open blocks.
	if spare, need := g.PhysicalPages-g.LogicalPages, (s.GCFreeBlocks+2)*g.PagesPerBlock; spare < need {
		return Geometry{}, fmt.Errorf("over-provisioning of %v leaves %d spare pages; the model needs %d (%d erase blocks: the GC reserve of %d and the two open blocks)",
			s.OverProvisioning, spare, need, s.GCFreeBlocks+2, s.GCFreeBlocks)
	}
	g.StaticPages = int(math.Round(s.StaticShare * float64(g.LogicalPages)))
	g.TraceSectors = min(uint64(g.LogicalPages-g.StaticPages)*uint64(g.SectorsPerPage), uint64(s.LogicalBytes/blocktrace.SectorSize))
	return g, nil
}
