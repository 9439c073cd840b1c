package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

// The seed's SQLite figures come from Androbench on Android, which opens its
// database with the framework defaults of that time: journal mode PERSIST and
// synchronous FULL (AOSP frameworks/base config.xml, db_default_journal_mode
// and db_default_sync_mode), pages of the filesystem's block size, and one
// statement per transaction. Those are the defaults here. As for
// fsync_latency, barrier against nobarrier is a spec variant of the mount
// options, not a field.

func newSQLiteTPS() *Recipe {
	return &Recipe{
		Name:       "sqlite_tps",
		Schema:     1,
		Summary:    "SQLite transactions per second for inserts, updates and deletes, Androbench style.",
		Source:     Citation{Ext4Barrier, "slides 8 and 10 \"Androbench SQLite ... Transactions Per Second\""},
		Target:     OnFilesystem,
		AccountsIO: true,
		Count:      "iterations",
		Needs:      Needs{Programs: []string{"sqlite3"}},
		Report: Report{Criteria: []Criterion{{Name: "SQLite transactions", Metrics: []string{"tps"}}}, Charts: []Chart{{Kind: Bars, Slug: "sqlite-tps-{test}", Title: "SQLite {test}: transactions per second",
			Bars: []Bar{{Metric: "tps"}}}}},
		Fields: []fields.Field{
			{
				Name: "operation",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"insert", "update", "delete"},
				// Seed 001 slides 8, 10: Androbench's SQLite test, which
				// times inserts, updates and deletes.
				Default: sweep("insert", "update", "delete"),
				Doc:     "Statement each transaction runs; update and delete work on rows inserted beforehand, outside the measurement.",
			},
			{
				Name: "transactions",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(10000000),
				// Not in the seed.
				Default: int64(1000),
				Doc:     "Number of transactions measured per case.",
			},
			{
				Name: "rows_per_transaction",
				Kind: fields.Int,
				Min:  fields.Bound(1), Max: fields.Bound(1000000),
				// Androbench commits every statement, so each transaction
				// syncs: the cost the seed's barrier comparison is about.
				Default: int64(1),
				Doc:     "Rows each transaction inserts, updates or deletes.",
			},
			{
				Name: "row_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(1 << 20),
				// Not in the seed: a short text row.
				Default: int64(100),
				Unit:    "bytes",
				Doc:     "Size of the text payload of each row.",
			},
			{
				Name: "journal_mode",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"DELETE", "TRUNCATE", "PERSIST", "MEMORY", "WAL", "OFF"},
				// Android's db_default_journal_mode of the seed's time.
				Default: sweep("PERSIST"),
				Doc:     "PRAGMA journal_mode.",
			},
			{
				Name: "synchronous",
				Kind: fields.Enum, Sweep: true,
				Enum: []string{"OFF", "NORMAL", "FULL", "EXTRA"},
				// Android's db_default_sync_mode.
				Default: sweep("FULL"),
				Doc:     "PRAGMA synchronous: how often SQLite syncs; OFF measures no sync at all.",
			},
			{
				Name: "page_size",
				Kind: fields.Int, PowerOfTwo: true,
				Min: fields.Bound(512), Max: fields.Bound(65536),
				// Android uses the filesystem block size, 4096 on the
				// filesystems of the seed.
				Default: int64(4096),
				Unit:    "bytes",
				Doc:     "PRAGMA page_size, set before the database is created.",
			},
			iterationsField(1, "Runs of each case; the report shows their mean and 95% interval."),
			timeoutField(30 * time.Minute),
		},
	}
}
