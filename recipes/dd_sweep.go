package recipes

import (
	"fmt"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// The seed's two scripts are both this recipe. The defaults are
// sdtest-block (48MiB at seven block sizes, twice each); sdtest-writezero is
//
//	test "dd_sweep" "sizes" {
//	  total  = ["10MiB", "50MiB", "100MiB"]
//	  bs     = "1MiB"
//	  passes = 1
//	  read   = true
//	}
//
// dd's M and k count in powers of 1024, so the seed's sizes are MiB and KiB.

func newDDSweep() *Recipe {
	return &Recipe{
		Name:       "dd_sweep",
		Schema:     1,
		Summary:    "dd write (and read-back) throughput of a file over a sweep of block sizes and file sizes, caches dropped between runs.",
		Source:     Citation{RPiForum, "scripts sdtest-block and sdtest-writezero"},
		Target:     OnFilesystem,
		AccountsIO: true,
		Count:      "passes",
		Report: Report{
			Criteria: []Criterion{{Name: "dd rate", Metrics: []string{"write_rate", "read_rate"}}},
			Headline: []Headline{{"write_rate", "write", "MB/s", 1}, {"read_rate", "read", "MB/s", 1}},
			Charts: []Chart{{Kind: RateBySize, Slug: "dd-sweep-{test}", Title: "dd {test}",
				Bars: []Bar{{Metric: "write_rate", Label: "write"}, {Metric: "read_rate", Label: "read"}}}},
		},
		Fields: []fields.Field{
			{
				Name: "total",
				Kind: fields.Size, Sweep: true,
				Min: fields.Bound(512),
				// Seed 002 sdtest-block: "48 MiB write test".
				Default: sweep(48 * units.MiB),
				Unit:    "bytes",
				Doc:     "Size of the file each run writes (dd count = total / bs).",
			},
			{
				Name: "bs",
				Kind: fields.Size, Sweep: true,
				Min: fields.Bound(512), Max: fields.Bound(float64(units.GiB)),
				// Seed 002 sdtest-block: bs=4M, 2M, 1M, 512k, 4k, 2k, 1k.
				Default: sweep(4*units.MiB, 2*units.MiB, units.MiB, 512*units.KiB, 4*units.KiB, 2*units.KiB, units.KiB),
				Unit:    "bytes",
				Doc:     "dd block size.",
			},
			{
				Name: "passes",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(1000),
				// Seed 002: "48 MiB write test, 2x repeatition".
				Default: int64(2),
				Doc:     "Runs of each case; the report shows each pass and their average, as the seed's tables do.",
			},
			{
				Name: "drop_caches",
				Kind: fields.Bool,
				// Seed 002: "sync; echo 1 > /proc/sys/vm/drop_caches"
				// before every dd.
				Default: true,
				Doc:     "Sync and drop the page cache (echo 1 > /proc/sys/vm/drop_caches) before every write and every read.",
			},
			{
				Name: "read",
				Kind: fields.Bool,
				// Seed 002: sdtest-block only writes; sdtest-writezero
				// reads each file back (of=/dev/null).
				Default: false,
				Doc:     "After each write, drop caches and read the file back with the same block size.",
			},
			{
				Name: "source",
				Kind: fields.Enum,
				Enum: []string{"/dev/zero", "/dev/urandom"},
				// Seed 002: "dd if=/dev/zero".
				Default: "/dev/zero",
				Doc:     "Data written; /dev/zero as in the seed, /dev/urandom when the filesystem compresses.",
			},
			{
				Name: "fsync",
				Kind: fields.Bool,
				// Seed 002 runs plain dd, so its figures include the page
				// cache (F2FS at 95MB/s on a 30MB/s card).
				Default: false,
				Doc:     "Run dd with conv=fsync, so that the time includes reaching the card.",
			},
			timeoutField(30 * time.Minute),
		},
		Check: checkDDSweep,
	}
}

func checkDDSweep(p Params) []Problem {
	var probs []Problem
	for _, total := range intList(p, "total") {
		var bad []string
		for _, bs := range intList(p, "bs") {
			if bs > 0 && total%bs != 0 {
				bad = append(bad, units.FormatSize(bs))
			}
		}
		if len(bad) > 0 {
			probs = append(probs, Problem{"total", "Total not a multiple of the block size",
				fmt.Sprintf("total %s is not a multiple of bs %s, so dd could not write it in whole blocks; use a multiple of every bs.",
					units.FormatSize(total), strings.Join(bad, ", "))})
		}
	}
	return probs
}
