// Package repart imports a systemd-repart definitions directory
// (repart.d, *.conf files with a [Partition] section each) into a spec
// of one GPT image. It follows systemd-repart on an empty disk, as
// `systemd-repart --empty=create --size=... image` makes one: the files
// in the order of their names, each partition at its minimum size
// (SizeMinBytes=, 10 MiB by default, or its filesystem's minimum,
// rounded up to 4 KiB) placed from the first MiB on, 4 KiB aligned, with
// its PaddingMinBytes= after it. The space a larger --size adds goes by
// Weight= to the partitions below their SizeMaxBytes=; the spec says
// that with `grow = true` when one partition, the last, takes all of it,
// and reports the files at their lines otherwise. The rules are repart.c's
// of systemd 252 (Debian 12's), cited by function. It never runs
// systemd-repart and never reads a file CopyFiles= names.
package repart

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/units"
)

// Import reads the repart.d directory dir.
func Import(dir string) (*importer.Spec, error) {
	defs, masked, err := readDir(dir)
	if err != nil {
		return nil, err
	}
	source := filepath.Base(filepath.Clean(dir))
	s := &importer.Spec{Format: "repart", Source: source}
	for _, m := range masked {
		s.Notef(importer.Pos{File: m, Line: 1}, m, "empty or a symlink to /dev/null: systemd-repart skips a masked file, and so does the import")
	}
	if len(defs) == 0 {
		return nil, importer.Error(importer.Pos{File: source, Line: 1}, "no *.conf definition file: systemd-repart would make an empty GPT")
	}
	c := &conv{s: s}
	for _, d := range defs {
		q, err := c.partition(d)
		if err != nil {
			return nil, err
		}
		c.parts = append(c.parts, q)
	}
	c.labels()
	img := &importer.Image{At: defs[0].header, What: "the disk systemd-repart --empty=create writes, " + describeOrder(defs),
		Name: "disk", Title: "disk", Table: "gpt", Align: grain}
	c.place(img)
	s.Images = append(s.Images, img)
	slices.SortStableFunc(s.Findings, func(a, b importer.Finding) int {
		return cmp.Or(strings.Compare(a.At.File, b.At.File), cmp.Compare(a.At.Line, b.At.Line))
	})
	return s, nil
}

type conv struct {
	s     *importer.Spec
	parts []*part
	names map[string]bool
}

func describeOrder(defs []*definition) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.file
	}
	return "in the order of the files' names: " + strings.Join(names, ", ")
}

// labels gives every partition without Label= the name of its type, and
// -2, -3, ... after a name an earlier partition has
// (partition_acquire_label).
func (c *conv) labels() {
	for i, q := range c.parts {
		if q.label != "" || q.labelSet {
			continue
		}
		taken := func(l string) bool {
			for _, o := range c.parts[:i] {
				if o.label == l {
					return true
				}
			}
			return false
		}
		l := q.typ.name
		for k := 2; taken(l); k++ {
			l = fmt.Sprintf("%s-%d", q.typ.name, k)
		}
		q.label = l
	}
	for _, q := range c.parts {
		q.p.Label = q.label
		q.fsLabel()
	}
}

// place sizes and places the partitions as context_allocate_partitions,
// context_grow_partitions and context_place_partitions do on an empty
// disk, and sizes the image.
func (c *conv) place(img *importer.Image) {
	var growing []*part
	padGrowing := false
	for _, q := range c.parts {
		if q.grows() {
			growing = append(growing, q)
		}
		padGrowing = padGrowing || q.padGrows()
	}
	last := c.parts[len(c.parts)-1]
	exact := !padGrowing && (len(growing) == 0 ||
		len(growing) == 1 && growing[0] == last && last.maxSize() == noMax && last.padMin() == 0)
	off := int64(firstUsable)
	for i, q := range c.parts {
		q.p.Size = q.minSize()
		if i == 0 || c.parts[i-1].padMin() > 0 {
			q.p.Offset = off
		}
		off += q.footprint()
		img.Partitions = append(img.Partitions, q.p)
		c.smallJournal(q)
	}
	auto := autoSize(c.parts)
	if auto <= smallDisk {
		c.s.Errorf(c.parts[0].def.header, "SizeMinBytes=", "the partitions take %s: on a disk of 4MiB or less libfdisk aligns the table to 512 bytes, not 1MiB, and repart places them from 20KiB on; the spec places them from 1MiB: give them more room", units.FormatSize(auto-gptMetadata))
	}
	if !exact {
		img.Size = auto
		c.reportGrowth(growing, padGrowing)
		return
	}
	def := units.FormatSize(auto)
	c.s.AddVariable(importer.Variable{Name: "disk_size", Default: &def,
		Description: "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"})
	img.SizeVar = "disk_size"
	if len(growing) == 1 {
		last.p.Grow, last.p.Size = true, 0
		last.p.Notes = append(last.p.Notes, fmt.Sprintf("takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least %s", units.FormatSize(last.minSize())))
	}
}

// reportGrowth reports, at the line that makes it grow, each partition
// (or padding) that a disk larger than --size=auto's would give more
// than its minimum, when the spec cannot say how much: the spec keeps
// --size=auto's image, every partition at its minimum.
func (c *conv) reportGrowth(growing []*part, padGrowing bool) {
	names := make([]string, len(growing))
	for i, q := range growing {
		names[i] = q.def.file
	}
	for _, q := range growing {
		at, opt := q.def.header, "Weight="
		for _, k := range []string{"SizeMaxBytes", "Weight"} {
			if p, ok := q.at[k]; ok {
				at, opt = p, k+"="
			}
		}
		switch {
		case len(growing) > 1:
			c.s.Errorf(at, opt, "repart shares the space a disk has past the minimum sizes among %s by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (%s here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=", strings.Join(names, ", "), units.FormatSize(q.minSize()))
		case q.maxSize() != noMax:
			c.s.Errorf(at, opt, "repart grows the partition up to %s and leaves the rest of a larger disk free; fsbench's grow takes all of it. The spec gives it its minimum, %s: the image of --size=auto. Give SizeMinBytes= the size you want", units.FormatSize(q.maxSize()), units.FormatSize(q.minSize()))
		case q.padMin() > 0:
			c.s.Errorf(q.at["PaddingMinBytes"], "PaddingMinBytes=", "the partition that takes the free space keeps %s free after it; fsbench's grow takes all of it. The spec gives it its minimum, the image of --size=auto", units.FormatSize(q.padMin()))
		case q == c.parts[len(c.parts)-1]:
			// it alone grows; a growing padding is what the spec cannot say
		default:
			c.s.Errorf(at, opt, "the partition takes the space of a larger disk, and %d partitions follow it; fsbench grows only the last partition. The spec gives it its minimum, the image of --size=auto: rename the files so that it sorts last, or give it SizeMaxBytes=", len(c.parts)-1-indexOf(c.parts, q))
		}
	}
	if padGrowing {
		for _, q := range c.parts {
			if q.padGrows() {
				c.s.Errorf(q.at["PaddingWeight"], "PaddingWeight=", "repart gives the free space after the partition a share of a larger disk; fsbench has no padding that grows. The spec keeps PaddingMinBytes=, the image of --size=auto")
			}
		}
	}
}

func indexOf(parts []*part, q *part) int {
	for i, o := range parts {
		if o == q {
			return i
		}
	}
	return -1
}

// smallJournal leaves the journal out of an ext3 or ext4 filesystem too
// small for one, as mke2fs does on its own for repart (fewer than 2048
// blocks of 4KiB), where fsbench would refuse the journal it cannot make.
func (c *conv) smallJournal(q *part) {
	fs := q.p.Filesystem
	if fs == nil || (fs.Type != "ext3" && fs.Type != "ext4") || q.p.Size >= 2048*4096 || q.grows() {
		return
	}
	fs.NoJournal = true
	c.s.Notef(q.at["Format"], "Format=", "an ext filesystem of %s has no room for a journal; mke2fs leaves it out for repart, the spec says journal = false", units.FormatSize(q.p.Size))
}
