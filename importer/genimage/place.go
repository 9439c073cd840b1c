package genimage

import "github.com/fsbench/fsbench/importer"

// placer follows genimage's cursor through an hdimage's partitions, in
// declaration order, as far as it is known without the inputs: genimage
// places a partition without an offset after everything declared before
// it, regions outside the table included, where fsbench places it after
// the partitions before it, skipping only the raw regions in its way. A
// partition placed after a raw region gets its offset in the spec.
type placer struct {
	now     int64   // genimage's cursor: the end of everything before
	known   bool    // now does not depend on an input's size
	open    []int64 // raw regions of a file's size that nothing known follows
	partEnd int64   // the end of the partitions before: fsbench's cursor
	raws    []span
	align   int64
}

type span struct{ start, end int64 }

// newPlacer starts after the table's own structures.
func newPlacer(table string, img *importer.Image) *placer {
	p := &placer{known: true, align: img.Align}
	switch table {
	case "mbr":
		p.now = 512
	case "gpt", "hybrid":
		loc := img.GPTLocation
		if loc == 0 {
			loc = 1024
		}
		p.now = loc + 32*512
	}
	p.partEnd = p.now
	return p
}

// raw records a region outside the table; size 0 is its file's, unknown
// until a later extent starts past it (genimage refuses overlaps, so the
// region ends before that extent).
func (p *placer) raw(offset, size int64) {
	p.raws = append(p.raws, span{offset, offset + size})
	if size == 0 {
		p.open = append(p.open, offset)
		return
	}
	p.extent(offset, offset+size)
}

// extent records something placed from start to end.
func (p *placer) extent(start, end int64) {
	p.now = max(p.now, end)
	var still []int64
	for _, o := range p.open {
		if o > start {
			still = append(still, o)
		}
	}
	p.open = still
}

// partition places part as genimage does and gives it an offset where
// fsbench would place it elsewhere.
func (p *placer) partition(part *importer.Partition) {
	align := part.Align
	if align == 0 {
		align = p.align
	}
	start := part.Offset
	if start < 0 && !part.Logical && p.known && len(p.open) == 0 {
		start = roundUp(p.now, align)
		// fsbench sizes a raw region by its file: only the explicit
		// offset makes it follow genimage's cursor past the region.
		if len(p.raws) > 0 && start != roundUp(p.partEnd, align) {
			part.Offset = start
		}
	}
	if start < 0 || part.Size == 0 || part.Grow || part.Logical || len(p.open) > 0 {
		p.known = false // the end depends on an input's size, or on the EBRs
		return
	}
	p.extent(start, start+part.Size)
	p.partEnd = max(p.partEnd, start+part.Size)
}

func roundUp(n, a int64) int64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}
