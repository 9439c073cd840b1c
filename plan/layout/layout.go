// Package layout places partitions on a disk: it turns sizes, offsets and
// "grow" requests into start and size in sectors for an MBR or GPT table,
// honouring alignment, the table's own structures and the raw regions a
// boot ROM reads. It is pure arithmetic with no I/O, so that `plan` shows
// exactly what `build` will write. It never moves a partition the user
// placed explicitly; it reports a problem instead.
//
// Partition numbers follow declaration order (on MBR: primary slots 1-4
// around the extended partition's slot, logical partitions from 5), and
// are independent of where the partitions lie: a partition declared later
// may sit earlier on the disk when it has an offset.
package layout

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fsbench/fsbench/internal/units"
)

// Request is one partition as the spec asks for it.
type Request struct {
	Name    string
	Size    int64 // bytes; ignored when Grow
	Offset  int64 // bytes from the disk start; -1 = after the previous one
	Align   int64 // bytes; 0 = the disk's
	Grow    bool
	Logical bool // MBR only
}

// Disk is the image the partitions go into.
type Disk struct {
	Table      string // "gpt", "mbr" or "none" (regions at offsets, no table)
	Size       int64  // bytes; 0 = as large as the partitions need
	SectorSize int64
	Align      int64 // bytes
	// GPTEntries is the byte offset of the GPT partition entry array;
	// 0 = sector 2, right after the header, where every tool puts it.
	GPTEntries int64
	// ExtendedSlot is the MBR entry (1-4) of the extended partition;
	// 0 = the slot after the primary partitions declared before the
	// first logical one.
	ExtendedSlot int
	// Reserved are byte ranges outside the table, such as raw regions a
	// boot ROM reads, that partitions placed without an offset skip.
	Reserved []Span
}

// Span is a named byte range, End exclusive.
type Span struct {
	Name       string
	Start, End int64
}

// Placed is a partition's final position.
type Placed struct {
	Name        string
	Index       int   // the request's index
	Number      int   // the partition number the kernel sees (1-based; logical from 5; 0 without a table)
	StartSector int64 // first sector
	Sectors     int64
	EBRSector   int64 // MBR logical partitions: where their EBR sits; 0 otherwise
}

// Start in bytes.
func (p Placed) Start(ss int64) int64 { return p.StartSector * ss }

// Size in bytes.
func (p Placed) Size(ss int64) int64 { return p.Sectors * ss }

// end is the first sector after the partition.
func (p Placed) end() int64 { return p.StartSector + p.Sectors }

// Extended is the MBR extended partition that holds the logical ones.
type Extended struct {
	StartSector, Sectors int64
	Slot                 int // its MBR entry, 1-4
}

// Result is the whole layout.
type Result struct {
	Partitions []Placed // in request order; those that could not be placed are left out
	Extended   *Extended
	// Size is the image's size in bytes: the disk's, or the one computed
	// from the partitions and reserved spans when the disk gave none.
	Size int64
	// FirstUsable and LastUsable bound where partitions may lie
	// (sectors, inclusive).
	FirstUsable, LastUsable int64
	// EntriesSector and EntriesSectors locate the GPT entry array.
	EntriesSector, EntriesSectors int64
}

// Problem is a layout error tied to one request ("" field = the request as
// a whole).
type Problem struct {
	Index   int    // request index, -1 for the disk
	Field   string // "size", "offset", "grow", "logical", "align", "" (partition as a whole); for the disk "size", "gpt_location", "extended_slot"
	Summary string
	Detail  string
}

// GPTEntriesBytes is the size of the partition entry array: 128 entries
// of 128 bytes, the minimum the UEFI spec allows and what every tool
// writes.
const GPTEntriesBytes = 128 * 128

// MaxGPTPartitions is the number of entries in that array.
const MaxGPTPartitions = 128

// imageRounding is what a computed image size is rounded up to on GPT, so
// that the backup table ends on a 4 KiB boundary, as genimage does.
const imageRounding = 4096

// Place computes the layout. It reports every problem it finds rather
// than stopping at the first.
func Place(d Disk, reqs []Request) (Result, []Problem) {
	p := &placer{d: d, ss: d.SectorSize, reqs: reqs, sized: d.Size > 0}
	p.structures()
	p.checkDisk()
	numbers := p.numbers()
	p.fixed = p.explicitSpans()
	p.cursor = p.res.FirstUsable
	for i, r := range reqs {
		if r.Grow && p.followedByPlaced(i) {
			continue // reported by checkGrow; the partitions after it are placed as if it were absent
		}
		if r.Logical && d.Table != "mbr" {
			p.problem(i, "logical", "Logical partition on a GPT table", "Only MBR tables have logical partitions.")
			continue
		}
		p.place(i, r, numbers[i])
	}
	p.checkGrow()
	p.finishSize()
	p.checkOverlaps()
	p.extended()
	return p.res, p.problems
}

type placer struct {
	d        Disk
	ss       int64 // sector size in bytes
	reqs     []Request
	sized    bool  // the disk has a size of its own
	cursor   int64 // next free sector in declaration order
	fixed    []fixedSpan
	res      Result
	problems []Problem
}

// fixedSpan is a partition with an explicit offset, known before any is
// placed, so that a growing partition stops at it.
type fixedSpan struct{ start, end int64 } // sectors, end exclusive; start includes a logical partition's EBR

func (p *placer) problem(i int, field, summary, detail string) {
	p.problems = append(p.problems, Problem{Index: i, Field: field, Summary: summary, Detail: detail})
}

// align is a request's alignment in sectors.
func (p *placer) align(r Request) int64 {
	a := r.Align
	if a <= 0 {
		a = p.d.Align
	}
	return max(a/p.ss, 1)
}

func alignUp(s, a int64) int64 {
	if a <= 1 {
		return s
	}
	return (s + a - 1) / a * a
}

// structures locates the table's own sectors and the usable range.
func (p *placer) structures() {
	total := p.d.Size / p.ss
	if !p.sized {
		total = 1 << 40 // bounded later by finishSize
	}
	switch p.d.Table {
	case "none":
		p.res.FirstUsable, p.res.LastUsable = 0, total-1
		return
	case "mbr":
		p.res.FirstUsable, p.res.LastUsable = 1, total-1
		return
	}
	n := GPTEntriesBytes / p.ss
	at := int64(2)
	if p.d.GPTEntries > 0 && p.d.GPTEntries%p.ss == 0 {
		at = p.d.GPTEntries / p.ss
	}
	p.res.EntriesSector, p.res.EntriesSectors = at, n
	// Protective MBR, primary header, (gap,) entries ... entries, and at
	// the end the backup entries and header.
	p.res.FirstUsable, p.res.LastUsable = at+n, total-2-n
}

func (p *placer) checkDisk() {
	if p.d.Table == "gpt" {
		if g := p.d.GPTEntries; g > 0 && g%p.ss != 0 {
			p.problem(-1, "gpt_location", "GPT entries not on a sector",
				fmt.Sprintf("gpt_location %d bytes is not a multiple of the %d-byte sector.", g, p.ss))
		} else if g > 0 && g < 2*p.ss {
			p.problem(-1, "gpt_location", "GPT entries over the header",
				fmt.Sprintf("The entry array must start after the protective MBR and the GPT header (sectors 0 and 1), at %s or later; gpt_location is %s.",
					units.FormatSize(2*p.ss), units.FormatSize(g)))
		}
		if len(p.reqs) > MaxGPTPartitions {
			p.problem(-1, "", "Too many partitions", fmt.Sprintf("A GPT table holds %d partitions; the image lists %d.", MaxGPTPartitions, len(p.reqs)))
		}
	}
	if g := p.res.EntriesSector; p.sized && p.d.Table == "gpt" && g > 2 && g+p.res.EntriesSectors > p.res.LastUsable+1 {
		p.problem(-1, "gpt_location", "GPT entries past the usable space",
			fmt.Sprintf("The entry array at sector %d takes %d sectors and would run into the backup GPT at the end of the %s image (from sector %d).",
				g, p.res.EntriesSectors, units.FormatSize(p.d.Size), p.res.LastUsable+1))
		return
	}
	if p.sized && p.res.LastUsable < p.res.FirstUsable {
		p.problem(-1, "size", "Image too small", fmt.Sprintf("A %s image of %s has no room for partitions: its table takes sectors up to %d.",
			p.d.Table, units.FormatSize(p.d.Size), p.res.FirstUsable-1))
	}
}

// numbers gives each request the partition number the kernel will see:
// declaration order on GPT; on MBR, primary partitions fill the slots
// around the extended partition's and logical ones count from 5.
func (p *placer) numbers() []int {
	nums := make([]int, len(p.reqs))
	if p.d.Table == "none" {
		return nums // no table: the kernel numbers none of them
	}
	if p.d.Table != "mbr" {
		for i := range nums {
			nums[i] = i + 1
		}
		return nums
	}
	firstLogical := slices.IndexFunc(p.reqs, func(r Request) bool { return r.Logical })
	slot := p.d.ExtendedSlot
	switch {
	case firstLogical < 0 && slot != 0:
		p.problem(-1, "extended_slot", "Extended slot without logical partitions",
			"extended_slot places the extended partition, which exists only to hold logical partitions, and no partition is logical = true.")
		slot = 0
	case firstLogical >= 0 && slot == 0:
		slot = 1
		for _, r := range p.reqs[:firstLogical] {
			if !r.Logical {
				slot++
			}
		}
	case slot < 0 || slot > 4:
		p.problem(-1, "extended_slot", "Invalid extended slot", fmt.Sprintf("An MBR has entries 1 to 4; extended_slot is %d.", slot))
		slot = 4
	}
	primary, logical := 1, 5
	reported := false
	for i, r := range p.reqs {
		if r.Logical {
			nums[i] = logical
			logical++
			continue
		}
		if primary == slot {
			primary++
		}
		nums[i] = primary
		if primary > 4 && !reported {
			reported = true
			p.tooManyPrimaries(i, slot)
		}
		primary++
	}
	if slot > 4 && !reported {
		p.tooManyPrimaries(firstLogical, slot)
	}
	if slot > 0 {
		p.res.Extended = &Extended{Slot: min(slot, 4)}
	}
	return nums
}

func (p *placer) tooManyPrimaries(i, slot int) {
	primaries := 0
	for _, r := range p.reqs {
		if !r.Logical {
			primaries++
		}
	}
	slots, ext := primaries, ""
	if slot > 0 {
		slots, ext = slots+1, " and the extended one"
	}
	p.problem(i, "", "Too many primary partitions",
		fmt.Sprintf("An MBR table has 4 slots and this image needs %d (%d primary%s). Mark more partitions logical = true to put them in the extended partition, or use table = \"gpt\".",
			slots, primaries, ext))
}

// explicitSpans are the partitions with an offset, as far as it is valid.
func (p *placer) explicitSpans() []fixedSpan {
	var out []fixedSpan
	for _, r := range p.reqs {
		if r.Offset < 0 || r.Offset%p.ss != 0 {
			continue
		}
		s := r.Offset / p.ss
		n := int64(0)
		if !r.Grow {
			n = r.Size / p.ss
		}
		if r.Logical {
			s--
			n++
		}
		out = append(out, fixedSpan{s, s + max(n, 1)})
	}
	return out
}

// followedByPlaced tells whether a partition declared after request i
// has no offset: a growing partition then leaves it no room.
func (p *placer) followedByPlaced(i int) bool {
	for _, r := range p.reqs[i+1:] {
		if r.Offset < 0 {
			return true
		}
	}
	return false
}

func (p *placer) checkGrow() {
	for i, r := range p.reqs {
		if !r.Grow || !p.followedByPlaced(i) {
			continue
		}
		n := 0
		for _, q := range p.reqs[i+1:] {
			if q.Offset < 0 {
				n++
			}
		}
		p.problem(i, "grow", "Growing partition not last",
			fmt.Sprintf("Partition %q grows to the next partition or the end of the image, so the partitions declared after it need an explicit offset; %d follow it without one.", r.Name, n))
	}
}

// place puts request i on the disk.
func (p *placer) place(i int, r Request, number int) {
	a := p.align(r)
	var ebr, start int64
	if r.Offset >= 0 {
		s, ok := p.explicitStart(i, r, a)
		if !ok {
			return
		}
		start = s
		if r.Logical {
			ebr = s - 1
		}
	} else {
		ebr, start = p.autoStart(r, a)
	}
	n, ok := p.sectors(i, r, start, a)
	if !ok {
		return
	}
	p.res.Partitions = append(p.res.Partitions, Placed{Name: r.Name, Index: i, Number: number, StartSector: start, Sectors: n, EBRSector: ebr})
	p.cursor = max(p.cursor, start+n)
}

// explicitStart checks an offset the spec gave.
func (p *placer) explicitStart(i int, r Request, a int64) (int64, bool) {
	if r.Offset%p.ss != 0 {
		p.problem(i, "offset", "Partition offset not on a sector",
			fmt.Sprintf("Offset %d is not a multiple of the %d-byte sector.", r.Offset, p.ss))
		return 0, false
	}
	s := r.Offset / p.ss
	if a > 1 && s%a != 0 {
		what := "the image's alignment"
		if r.Align > 0 {
			what = "its alignment"
		}
		p.problem(i, "offset", "Misaligned partition",
			fmt.Sprintf("Partition %q starts at %s, which is not a multiple of %s %s; flash erase blocks would straddle it. Move it to %s or lower align.",
				r.Name, units.FormatSize(r.Offset), what, units.FormatSize(a*p.ss), units.FormatSize(alignUp(s, a)*p.ss)))
	}
	first := s
	if r.Logical {
		first = s - 1 // its EBR
	}
	if first < p.res.FirstUsable {
		p.problem(i, "offset", "Overlapping partitions", fmt.Sprintf("Partition %q starts at sector %d, %s.", r.Name, s, p.insideTable(first, r.Logical)))
		return 0, false
	}
	return s, true
}

// insideTable describes why sector s is not usable.
func (p *placer) insideTable(s int64, logical bool) string {
	ebr := ""
	if logical {
		ebr = fmt.Sprintf(" (its EBR would take sector %d)", s)
	}
	if p.d.Table != "gpt" {
		return fmt.Sprintf("inside the partition table%s: sector 0 holds the MBR, partitions may start at sector 1", ebr)
	}
	if p.res.EntriesSector > 2 && s >= 2 {
		return fmt.Sprintf("before the end of the GPT entry array%s, which gpt_location puts at sectors %d-%d: GPT partitions lie after the array, from sector %d; move the array below the partitions",
			ebr, p.res.EntriesSector, p.res.FirstUsable-1, p.res.FirstUsable)
	}
	return fmt.Sprintf("inside the partition table%s: the protective MBR, the GPT header and its entries take sectors 0-%d, partitions may start at sector %d",
		ebr, p.res.FirstUsable-1, p.res.FirstUsable)
}

// autoStart places a partition without an offset after the previous
// one, aligned, skipping the reserved spans in its way. A logical
// partition's EBR takes an aligned sector and the partition starts one
// alignment unit later, so that its data stays aligned.
func (p *placer) autoStart(r Request, a int64) (ebr, start int64) {
	n := int64(1)
	if !r.Grow && r.Size > 0 {
		n = r.Size / p.ss
	}
	from := p.cursor
	da := max(p.d.Align/p.ss, 1)
	for range len(p.d.Reserved) + 1 {
		if r.Logical {
			ebr = alignUp(from, da)
			start = alignUp(ebr+1, a)
		} else {
			start = alignUp(from, a)
			ebr = start
		}
		moved := false
		for _, sp := range p.d.Reserved {
			s, e := sp.Start/p.ss, (sp.End+p.ss-1)/p.ss
			if s < start+n && ebr < e {
				from, moved = max(from, e), true
			}
		}
		if !moved {
			break
		}
	}
	if !r.Logical {
		ebr = 0
	}
	return ebr, start
}

// sectors decides a partition's length from its start.
func (p *placer) sectors(i int, r Request, start, a int64) (int64, bool) {
	if r.Grow {
		if !p.sized {
			p.problem(i, "grow", "Growing partition in an image without a size",
				fmt.Sprintf("Partition %q grows to fill the image, and the image takes its size from its partitions: give the image a size, or the partition one.", r.Name))
			return 0, false
		}
		end := p.res.LastUsable + 1
		for _, f := range p.fixed {
			if f.start > start {
				end = min(end, f.start)
			}
		}
		for _, sp := range p.d.Reserved {
			if s := sp.Start / p.ss; s > start {
				end = min(end, s)
			}
		}
		end = end / a * a
		n := end - start
		if n <= 0 {
			p.problem(i, "grow", "No room left to grow into",
				fmt.Sprintf("Partition %q would grow from sector %d but the free space ends at sector %d.", r.Name, start, end-1))
			return 0, false
		}
		return n, true
	}
	if r.Size%p.ss != 0 {
		p.problem(i, "size", "Partition size not a whole number of sectors",
			fmt.Sprintf("%d bytes is not a multiple of the %d-byte sector.", r.Size, p.ss))
		return 0, false
	}
	n := r.Size / p.ss
	if p.sized && start+n-1 > p.res.LastUsable {
		past := units.HumanSize((start + n - 1 - p.res.LastUsable) * p.ss)
		tail := ""
		if p.d.Table == "gpt" {
			tail = ", before the backup GPT"
		}
		p.problem(i, "size", "Partition does not fit",
			fmt.Sprintf("Partition %q (%s from %s) ends %s past the usable end of the %s image (sector %d%s).",
				r.Name, units.FormatSize(r.Size), units.FormatSize(start*p.ss), past, units.FormatSize(p.d.Size), p.res.LastUsable, tail))
		return 0, false
	}
	return n, true
}

// finishSize computes the image's size when the disk gave none: up to the
// last partition or reserved span, then the backup GPT, rounded up to
// 4 KiB on GPT as genimage does.
func (p *placer) finishSize() {
	if p.sized {
		p.res.Size = p.d.Size
		if p.d.Table == "mbr" && p.d.Size/p.ss > 1<<32 {
			p.mbrTooLarge(p.d.Size)
		}
		return
	}
	end := p.res.FirstUsable * p.ss
	for _, pl := range p.res.Partitions {
		end = max(end, pl.end()*p.ss)
	}
	for _, sp := range p.d.Reserved {
		end = max(end, sp.End)
	}
	end = alignUp(end, p.ss)
	if p.d.Table == "gpt" {
		end = alignUp(end+(p.res.EntriesSectors+1)*p.ss, max(imageRounding, p.ss))
		p.res.LastUsable = end/p.ss - 2 - p.res.EntriesSectors
	} else {
		p.res.LastUsable = end/p.ss - 1
	}
	p.res.Size = end
	if p.d.Table == "mbr" && end/p.ss > 1<<32 {
		p.mbrTooLarge(end)
	}
}

func (p *placer) mbrTooLarge(size int64) {
	p.problem(-1, "size", "Image too large for MBR",
		fmt.Sprintf("MBR counts sectors in 32 bits: with %d-byte sectors it reaches %s at most, and the image is %s. Use table = \"gpt\".",
			p.ss, units.FormatSize((1<<32)*p.ss), units.FormatSize(size)))
}

// checkOverlaps compares every pair of placed partitions, EBRs included,
// and reports each overlap once, at the partition declared later.
func (p *placer) checkOverlaps() {
	placed := p.res.Partitions
	bad := map[int]bool{}
	for j := range placed {
		for k := range j {
			a, b := placed[k], placed[j] // a declared before b
			if msg := overlap(a, b); msg != "" && !bad[b.Index] {
				bad[b.Index] = true
				p.problem(b.Index, p.whereOf(b.Index), "Overlapping partitions", msg)
			}
		}
	}
	if len(bad) > 0 {
		p.res.Partitions = slices.DeleteFunc(p.res.Partitions, func(pl Placed) bool { return bad[pl.Index] })
	}
}

// whereOf is the attribute an overlap is reported at: the offset when
// the spec gave one.
func (p *placer) whereOf(i int) string {
	if p.reqs[i].Offset >= 0 {
		return "offset"
	}
	return ""
}

// overlap describes how b collides with a, declared before it, or "".
func overlap(a, b Placed) string {
	rng := func(pl Placed) string { return fmt.Sprintf("sectors %d-%d", pl.StartSector, pl.end()-1) }
	switch {
	case a.StartSector < b.end() && b.StartSector < a.end():
		return fmt.Sprintf("Partition %q (%s) overlaps partition %q (%s).", b.Name, rng(b), a.Name, rng(a))
	case b.EBRSector > 0 && a.StartSector <= b.EBRSector && b.EBRSector < a.end():
		return fmt.Sprintf("The EBR of logical partition %q sits in the sector before it, %d, which lies inside partition %q (%s): a logical partition needs a free sector before it. Start %q at sector %d or later.",
			b.Name, b.EBRSector, a.Name, rng(a), b.Name, a.end()+1)
	case a.EBRSector > 0 && b.StartSector <= a.EBRSector && a.EBRSector < b.end():
		return fmt.Sprintf("Partition %q (%s) covers sector %d, the EBR of logical partition %q that precedes it.", b.Name, rng(b), a.EBRSector, a.Name)
	}
	return ""
}

// extended spans the logical partitions with the extended partition,
// which starts at the first EBR: that is where the kernel looks for it.
// The EBRs are chained forward, so logical partitions lie in declaration
// order, and no primary partition may lie between them.
func (p *placer) extended() {
	var logical []Placed
	for _, pl := range p.res.Partitions {
		if p.reqs[pl.Index].Logical {
			logical = append(logical, pl)
		}
	}
	if len(logical) == 0 {
		p.res.Extended = nil // none asked for, or their placement failed and was reported
		return
	}
	for k := 1; k < len(logical); k++ {
		prev, cur := logical[k-1], logical[k]
		if cur.EBRSector < prev.end() {
			p.problem(cur.Index, p.whereOf(cur.Index), "Logical partitions out of order",
				fmt.Sprintf("Logical partition %q (sector %d) lies before logical partition %q (sector %d), declared before it: the chain of EBRs runs forward through the extended partition, so declare the logical partitions in disk order.",
					cur.Name, cur.StartSector, prev.Name, prev.StartSector))
			p.res.Extended = nil
			return
		}
	}
	e := p.res.Extended
	e.StartSector = logical[0].EBRSector
	e.Sectors = logical[len(logical)-1].end() - e.StartSector
	for _, pl := range p.res.Partitions {
		if p.reqs[pl.Index].Logical || pl.end() <= e.StartSector || pl.StartSector >= e.StartSector+e.Sectors {
			continue
		}
		p.problem(pl.Index, p.whereOf(pl.Index), "Primary partition among logical ones",
			fmt.Sprintf("Partition %q (sectors %d-%d) is primary and lies inside the extended partition (sectors %d-%d) that holds the logical partitions; the extended partition is one piece. Place it before the first logical partition or after the last.",
				pl.Name, pl.StartSector, pl.end()-1, e.StartSector, e.StartSector+e.Sectors-1))
	}
}

// Sorted returns the placed partitions in disk order.
func (r Result) Sorted() []Placed {
	out := slices.Clone(r.Partitions)
	slices.SortFunc(out, func(a, b Placed) int { return cmp.Compare(a.StartSector, b.StartSector) })
	return out
}
