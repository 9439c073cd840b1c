package recipes

import (
	"fmt"
	"slices"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// The seed runs two tools: postmark (a mail-server-like churn of small files)
// and bonnie++. The postmark fields keep postmark's own names where it has
// them ("set number", "set transactions"); the bonnie_ fields are bonnie++'s
// -s, -r and -n. ext3's data=ordered/journal/writeback, which the seed
// compares, are mount option variants in the spec.

func newSmallFiles() *Recipe {
	return &Recipe{
		Name:       "small_files",
		Schema:     1,
		Summary:    "Small-file workloads: a postmark-like create/read/append/delete churn and bonnie++-like file and metadata tests.",
		Source:     Citation{JournalFS, "section \"Conclusioni\": postmark and bonnie++ runs"},
		Target:     OnFilesystem,
		AccountsIO: true,
		Count:      "iterations",
		Report: Report{Criteria: []Criterion{{Name: "small files", Metrics: []string{"transactions_per_s", "seq_create", "ran_create"}}}, Charts: []Chart{
			{Kind: Bars, PerCase: true, Slug: "small-files-{test}-{case}-postmark", Title: "small files {test} {case}: PostMark operation rates",
				Bars: []Bar{{Metric: "transactions_per_s", Label: "transactions"}, {Metric: "files_created_per_s", Label: "created"},
					{Metric: "files_read_per_s", Label: "read"}, {Metric: "files_appended_per_s", Label: "appended"},
					{Metric: "files_deleted_per_s", Label: "deleted"}},
				Measured: true, CaseLabels: CaseNever},
			{Kind: Bars, PerCase: true, Slug: "small-files-{test}-{case}-bonnie-files", Title: "small files {test} {case}: bonnie++ file operations",
				Bars: []Bar{{Metric: "seq_create", Label: "sequential create"}, {Metric: "seq_stat", Label: "sequential stat"},
					{Metric: "seq_del", Label: "sequential delete"}, {Metric: "ran_create", Label: "random create"},
					{Metric: "ran_stat", Label: "random stat"}, {Metric: "ran_del", Label: "random delete"}},
				Measured: true, CaseLabels: CaseNever},
			{Kind: Bars, PerCase: true, Slug: "small-files-{test}-{case}-bonnie-blocks", Title: "small files {test} {case}: bonnie++ block I/O",
				Bars: []Bar{{Metric: "put_block", Label: "block write"}, {Metric: "rewrite", Label: "rewrite"},
					{Metric: "get_block", Label: "block read"}},
				Measured: true, CaseLabels: CaseNever},
		}},
		Fields: []fields.Field{
			{
				Name: "mode",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"postmark", "bonnie"},
				// Seed 004 runs both tools.
				Default: sweep("postmark", "bonnie"),
				Doc:     "postmark: the postmark workload with the fields below; bonnie: the bonnie++ workload with the bonnie_ fields.",
			},
			{
				Name: "files",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(10000000),
				// Seed 004: "pm>set number 1000".
				Default: int64(1000),
				Doc:     "postmark's number: files created before the transactions start.",
			},
			{
				Name: "transactions",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(100000000),
				// Seed 004: "pm>set transactions 10000".
				Default: int64(10000),
				Doc:     "postmark's transactions: each one a create or delete plus a read or append.",
			},
			{
				Name: "min_size",
				Kind: fields.Size,
				Min:  fields.Bound(1),
				// postmark's default "set size 500 10000" (seed 004 keeps it).
				Default: int64(500),
				Unit:    "bytes",
				Doc:     "Smallest file postmark creates.",
			},
			{
				Name: "max_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.GiB)),
				// postmark's default "set size 500 10000".
				Default: int64(10000),
				Unit:    "bytes",
				Doc:     "Largest file postmark creates.",
			},
			{
				Name: "read_block",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.MiB)),
				// postmark's default "set read 512".
				Default: int64(512),
				Unit:    "bytes",
				Doc:     "Size of each read call.",
			},
			{
				Name: "write_block",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.MiB)),
				// postmark's default "set write 512".
				Default: int64(512),
				Unit:    "bytes",
				Doc:     "Size of each write call.",
			},
			{
				Name: "subdirectories",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(100000),
				// postmark's default "set subdirectories 0".
				Default: int64(0),
				Doc:     "Directories the files are spread over; 0 puts them all in one.",
			},
			{
				Name: "read_bias",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(10),
				// postmark's default "set bias read 5"; seed 004 shows
				// 4999 reads against 4968 appends.
				Default: int64(5),
				Doc:     "Chance, in tenths, that a transaction reads rather than appends.",
			},
			{
				Name: "create_bias",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(10),
				// postmark's default "set bias create 5".
				Default: int64(5),
				Doc:     "Chance, in tenths, that a transaction creates rather than deletes a file.",
			},
			{
				Name: "buffered",
				Kind: fields.Bool,
				// postmark's default "set buffering true".
				Default: true,
				Doc:     "Use buffered (stdio-like) file I/O, as postmark does by default.",
			},
			{
				Name: "random_seed",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(4294967295),
				// postmark's default "set seed 42": the same churn on
				// every filesystem.
				Default: int64(42),
				Doc:     "Seed of the file size and operation choices, so every filesystem sees the same sequence.",
			},
			{
				Name: "bonnie_size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(units.MiB)), Multiple: units.MiB,
				// Seed 004: "bonnie++ -d /mnt/rootfs -s 20 -r 4".
				Default: 20 * units.MiB,
				Unit:    "bytes",
				Doc:     "bonnie++ -s: size of the file of the sequential and seek tests (whole MiB).",
			},
			{
				Name: "bonnie_ram",
				Kind: fields.Size,
				Min:  fields.Bound(0), Multiple: units.MiB,
				// Seed 004: "-r 4".
				Default: 4 * units.MiB,
				Unit:    "bytes",
				Doc:     "bonnie++ -r: the RAM size bonnie++ assumes (whole MiB); bonnie_size must be at least twice it.",
			},
			{
				Name: "bonnie_files",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(1000),
				// bonnie++'s default -n 16; seed 004's tables: "16 File".
				Default: int64(16),
				Unit:    "x1024 files",
				Doc:     "bonnie++ -n: thousands (x1024) of files for the create/read/delete tests.",
			},
			iterationsField(1, "Runs of each case; the report shows their mean and 95% interval."),
			timeoutField(time.Hour),
		},
		Check: checkSmallFiles,
	}
}

func checkSmallFiles(p Params) []Problem {
	var probs []Problem
	lo, okLo := intParam(p, "min_size")
	hi, okHi := intParam(p, "max_size")
	if okLo && okHi && lo > hi {
		probs = append(probs, Problem{"max_size", "File size range reversed",
			fmt.Sprintf("max_size %s is below min_size %s; postmark picks sizes between the two.", units.FormatSize(hi), units.FormatSize(lo))})
	}
	size, okSize := intParam(p, "bonnie_size")
	ram, okRAM := intParam(p, "bonnie_ram")
	if slices.Contains(stringList(p, "mode"), "bonnie") && okSize && okRAM && size < 2*ram {
		probs = append(probs, Problem{"bonnie_size", "bonnie++ file smaller than twice the RAM",
			fmt.Sprintf("bonnie_size %s is less than twice bonnie_ram %s; bonnie++ refuses to run, because the page cache would hold the whole file.",
				units.FormatSize(size), units.FormatSize(ram))})
	}
	return probs
}
