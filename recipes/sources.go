package recipes

import "strings"

// Study is one of the studies whose experiments fsbench reproduces.
type Study struct {
	Author, Title, Venue, Year string
}

// The studies the recipes come from.
var (
	// ELC2015 gives the method of most recipes: the fio matrix, boot,
	// mount and fsck time, mkfs statistics and the reliability tests.
	ELC2015 = &Study{Author: "T. Lelong", Title: "Filesystem considerations for embedded devices",
		Venue: "Embedded Linux Conference", Year: "2015"}
	// Ext4Barrier measures fsync latency and SQLite transactions with and
	// without the ext4 write barrier.
	Ext4Barrier = &Study{Author: "S. Roy", Title: "Ext4 write barrier", Venue: "slides"}
	// RPiForum is a dd block-size sweep of F2FS, ext4 and btrfs on a
	// micro SD card.
	RPiForum = &Study{Title: "F2FS vs ext4 vs btrfs raid1 on a micro SD card", Venue: "Raspberry Pi forums"}
	// JournalFS compares journaling filesystems with bonnie++ and PostMark.
	JournalFS = &Study{Title: "Analisi comparativa dei Journal File System per GNU/Linux",
		Venue: "article, in Italian"}
)

// Citation points into a study.
type Citation struct {
	Study *Study
	// Where is the pages, slides or section, with their titles.
	Where string
}

// String cites the study by author, title, venue and year, then where in
// it: T. Lelong, "Filesystem considerations for embedded devices",
// Embedded Linux Conference 2015, p.65-68 "Boot time".
func (c Citation) String() string {
	if c.Study == nil {
		return c.Where
	}
	var parts []string
	if c.Study.Author != "" {
		parts = append(parts, c.Study.Author)
	}
	parts = append(parts, `"`+c.Study.Title+`"`)
	if v := strings.TrimSpace(c.Study.Venue + " " + c.Study.Year); v != "" {
		parts = append(parts, v)
	}
	if c.Where != "" {
		parts = append(parts, c.Where)
	}
	return strings.Join(parts, ", ")
}
