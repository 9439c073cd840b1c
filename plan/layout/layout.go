// Package layout places partitions on a disk: it turns sizes, offsets and
// "grow" requests into start and size in sectors for an MBR or GPT table,
// honouring alignment and the table's own structures. It is pure
// arithmetic with no I/O, so that `plan` shows exactly what `build` will
// write. It must never move a partition the user placed explicitly; it
// reports a problem instead.
package layout

import (
	"fmt"

	"github.com/fsbench/fsbench/internal/units"
)

// Request is one partition as the spec asks for it.
type Request struct {
	Name    string
	Size    int64 // bytes; ignored when Grow
	Offset  int64 // bytes from the disk start; -1 = after the previous one
	Grow    bool
	Logical bool // MBR only
}

// Disk is the image the partitions go into.
type Disk struct {
	Table      string // "gpt" or "mbr"
	Size       int64  // bytes
	SectorSize int64
	Align      int64 // bytes
}

// Placed is a partition's final position.
type Placed struct {
	Name        string
	Number      int   // the partition number the kernel sees (1-based; logical from 5)
	StartSector int64 // first sector
	Sectors     int64
	EBRSector   int64 // MBR logical partitions: where their EBR sits; 0 otherwise
}

// Start and End (exclusive) in bytes.
func (p Placed) Start(ss int64) int64 { return p.StartSector * ss }

// Size in bytes.
func (p Placed) Size(ss int64) int64 { return p.Sectors * ss }

// Extended is the MBR extended partition that holds the logical ones.
type Extended struct {
	StartSector, Sectors int64
}

// Result is the whole layout.
type Result struct {
	Partitions []Placed
	Extended   *Extended
	// FirstUsable and LastUsable bound where partitions may lie
	// (sectors, inclusive).
	FirstUsable, LastUsable int64
}

// Problem is a layout error tied to one request ("" field = the request as
// a whole).
type Problem struct {
	Index   int    // request index, -1 for the disk
	Field   string // "size", "offset", "grow", "logical", "" (partition as a whole)
	Summary string
	Detail  string
}

// gptEntriesBytes is the size of the partition entry array: 128 entries
// of 128 bytes, the minimum the UEFI spec allows and what every tool
// writes.
const gptEntriesBytes = 128 * 128

// MaxGPTPartitions is the number of entries in that array.
const MaxGPTPartitions = 128

// Usable returns the first and last sector partitions may use.
func Usable(d Disk) (first, last int64) {
	total := d.Size / d.SectorSize
	if d.Table == "gpt" {
		entries := gptEntriesBytes / d.SectorSize
		// Protective MBR, primary header, entries ... entries, backup header.
		return 2 + entries, total - 2 - entries
	}
	return 1, total - 1
}

// Place computes the layout. It reports every problem it finds rather
// than stopping at the first.
func Place(d Disk, reqs []Request) (Result, []Problem) {
	p := &placer{d: d, ss: d.SectorSize, align: d.Align / d.SectorSize}
	p.res.FirstUsable, p.res.LastUsable = Usable(d)
	p.checkDisk(len(reqs))
	p.cursor = p.res.FirstUsable
	number := 1
	logicalNumber := 5
	for i, r := range reqs {
		if r.Grow && i != len(reqs)-1 {
			// Reported by checkCounts. Leaving it out keeps the partitions
			// after it from being reported as not fitting.
			if !r.Logical {
				number++
			}
			continue
		}
		if r.Logical {
			p.placeLogical(i, r, logicalNumber)
			logicalNumber++
			continue
		}
		if p.res.Extended != nil {
			p.problem(i, "logical", "Primary partition after logical ones",
				fmt.Sprintf("Partition %q follows logical partitions; on MBR the logical partitions must come last, together, so that the extended partition that holds them is one piece.", r.Name))
		}
		p.placePrimary(i, r, number)
		number++
	}
	p.checkCounts(reqs)
	return p.res, p.problems
}

type placer struct {
	d        Disk
	ss       int64 // sector size in bytes
	align    int64 // alignment in sectors
	cursor   int64 // next free sector
	res      Result
	problems []Problem
}

func (p *placer) problem(i int, field, summary, detail string) {
	p.problems = append(p.problems, Problem{Index: i, Field: field, Summary: summary, Detail: detail})
}

func (p *placer) alignUp(s int64) int64 {
	if p.align <= 1 {
		return s
	}
	return (s + p.align - 1) / p.align * p.align
}

func (p *placer) checkDisk(n int) {
	if p.d.Table == "mbr" && p.d.Size/p.ss > 1<<32 {
		p.problem(-1, "size", "Image too large for MBR",
			fmt.Sprintf("MBR counts sectors in 32 bits: with %d-byte sectors it reaches %s at most, and the image is %s. Use table = \"gpt\".", p.ss, units.FormatSize((1<<32)*p.ss), units.FormatSize(p.d.Size)))
	}
	if p.d.Table == "gpt" && n > MaxGPTPartitions {
		p.problem(-1, "", "Too many partitions", fmt.Sprintf("A GPT table holds %d partitions; the image lists %d.", MaxGPTPartitions, n))
	}
	if p.res.LastUsable <= p.res.FirstUsable {
		p.problem(-1, "size", "Image too small", fmt.Sprintf("A %s image of %s has no room for partitions.", p.d.Table, units.FormatSize(p.d.Size)))
	}
}

// start decides where a partition begins; ok is false when its explicit
// offset is unusable (and was reported).
func (p *placer) start(i int, r Request, earliest int64) (int64, bool) {
	if r.Offset < 0 {
		return p.alignUp(earliest), true
	}
	if r.Offset%p.ss != 0 {
		p.problem(i, "offset", "Partition offset not on a sector",
			fmt.Sprintf("Offset %d is not a multiple of the %d-byte sector.", r.Offset, p.ss))
		return 0, false
	}
	s := r.Offset / p.ss
	if p.align > 1 && s%p.align != 0 {
		p.problem(i, "offset", "Misaligned partition",
			fmt.Sprintf("Partition %q starts at %s, which is not a multiple of the image's alignment %s; flash erase blocks would straddle it. Move it to %s or lower align.",
				r.Name, units.FormatSize(r.Offset), units.FormatSize(p.d.Align), units.FormatSize(p.alignUp(s)*p.ss)))
	}
	if s < earliest {
		what := fmt.Sprintf("before the end of the previous partition (free space starts at sector %d)", earliest)
		if s < p.res.FirstUsable {
			what = fmt.Sprintf("inside the partition table (partitions may start at sector %d)", p.res.FirstUsable)
		}
		p.problem(i, "offset", "Overlapping partitions",
			fmt.Sprintf("Partition %q starts at sector %d, %s.", r.Name, s, what))
		return 0, false
	}
	return s, true
}

// sectors decides a partition's length from its start.
func (p *placer) sectors(i int, r Request, start int64) (int64, bool) {
	if r.Grow {
		end := p.res.LastUsable + 1
		if p.align > 1 {
			end = end / p.align * p.align
		}
		n := end - start
		if n <= 0 {
			p.problem(i, "grow", "No room left to grow into",
				fmt.Sprintf("Partition %q would grow from sector %d but the usable space ends at sector %d.", r.Name, start, p.res.LastUsable))
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
	if start+n-1 > p.res.LastUsable {
		p.problem(i, "size", "Partition does not fit",
			fmt.Sprintf("Partition %q (%s from %s) ends %s past the usable end of the %s image (sector %d).",
				r.Name, units.FormatSize(r.Size), units.FormatSize(start*p.ss),
				units.HumanSize((start+n-1-p.res.LastUsable)*p.ss), units.FormatSize(p.d.Size), p.res.LastUsable))
		return 0, false
	}
	return n, true
}

func (p *placer) placePrimary(i int, r Request, number int) {
	start, ok := p.start(i, r, p.cursor)
	if !ok {
		return
	}
	n, ok := p.sectors(i, r, start)
	if !ok {
		return
	}
	p.res.Partitions = append(p.res.Partitions, Placed{Name: r.Name, Number: number, StartSector: start, Sectors: n})
	p.cursor = start + n
}

// placeLogical puts a logical partition after its EBR, which takes the
// sector before it. Without an explicit offset the partition starts one
// alignment unit after the EBR, so that its data stays aligned. The
// extended partition starts at the first EBR: that is where the kernel
// looks for it.
func (p *placer) placeLogical(i int, r Request, number int) {
	if p.d.Table != "mbr" {
		p.problem(i, "logical", "Logical partition on a GPT table", "Only MBR tables have logical partitions.")
		return
	}
	var ebr, start int64
	if r.Offset < 0 {
		ebr = p.alignUp(p.cursor)
		start = ebr + max(p.align, 1)
	} else {
		s, ok := p.start(i, r, p.cursor+1)
		if !ok {
			return
		}
		ebr, start = s-1, s
	}
	n, ok := p.sectors(i, r, start)
	if !ok {
		return
	}
	if p.res.Extended == nil {
		p.res.Extended = &Extended{StartSector: ebr}
	}
	p.res.Partitions = append(p.res.Partitions, Placed{Name: r.Name, Number: number, StartSector: start, Sectors: n, EBRSector: ebr})
	p.cursor = start + n
	p.res.Extended.Sectors = p.cursor - p.res.Extended.StartSector
}

func (p *placer) checkCounts(reqs []Request) {
	for j, r := range reqs {
		if r.Grow && j != len(reqs)-1 {
			p.problem(j, "grow", "Growing partition not last",
				fmt.Sprintf("Partition %q grows to fill the image, so it must be the last partition; %d follow it.", r.Name, len(reqs)-1-j))
		}
	}
	if p.d.Table != "mbr" {
		return
	}
	primaries := 0
	for _, r := range reqs {
		if !r.Logical {
			primaries++
		}
	}
	slots := primaries
	if p.res.Extended != nil {
		slots++
	}
	if slots > 4 {
		idx := 0
		seen := 0
		for j, r := range reqs {
			if !r.Logical {
				seen++
				if seen == 5 || (p.res.Extended != nil && seen == 4) {
					idx = j
					break
				}
			}
		}
		p.problem(idx, "", "Too many primary partitions",
			fmt.Sprintf("An MBR table has 4 slots and this image needs %d (%d primary%s). Mark the later partitions logical = true to put them in an extended partition, or use table = \"gpt\".",
				slots, primaries, map[bool]string{true: " and the extended one", false: ""}[p.res.Extended != nil]))
	}
}
