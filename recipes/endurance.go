package recipes

import (
	"fmt"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// endurance replays a span of a typical embedded device's life, compressed:
// log lines appended and fsynced every few seconds, a small SQLite
// database taking a transaction now and then, a config file rewritten
// atomically, and the day's share of a large update. It runs as fast as
// the storage takes it, in the order the events would come, and reports
// the figures scaled to a day: the bytes the applications wrote, the bytes
// that reached the partition (the runner's write accounting), flushes, and
// the device-level request trace that the host's flash model (package ftl)
// turns into NAND writes, erases and a lifetime. The rates are the spec's:
// the defaults are a quiet gateway's, not a measurement of any product.

func newEndurance() *Recipe {
	return &Recipe{
		Name:    "endurance",
		Schema:  1,
		Summary: "A day of an embedded device's writes (logs, SQLite, config updates, a software update), compressed: bytes to flash a day and the trace for the flash wear model.",
		Source:  Citation{ELC2015, "p.10-13 \"FTL\" (wear leveling, garbage collection) and \"short lifetime per cell\""},
		Target:  OnFilesystem,
		Count:   "iterations",
		// The runner counts the workload's and the device's bytes around
		// the run; the recipe scales them to a day.
		AccountsIO: true,
		Needs:      Needs{CasePrograms: enduranceTools},
		Report: Report{
			Criteria: []Criterion{{Name: "lifetime", Metrics: []string{"device_bytes_per_day"}, Lifetime: true, Weight: 2}},
			Charts: []Chart{{Kind: Bars, Slug: "endurance-{test}", Title: "Endurance {test}: bytes to flash a day",
				Bars: []Bar{{Metric: "device_bytes_per_day"}}}},
			More: []string{"workload_bytes_per_day", "flushes_per_day", "write_amplification", "trace_records"},
		},
		Fields: []fields.Field{
			{
				Name: "duration",
				Kind: fields.Duration,
				Min:  fields.Bound(60), Max: fields.Bound(30 * 86400),
				Default: (24 * time.Hour).String(),
				Unit:    "s",
				Doc:     "Span of the device's life the run replays, as fast as the storage takes it; the figures are scaled to a day.",
			},
			{
				Name: "log_bytes_per_day",
				Kind: fields.Size,
				Min:  fields.Bound(0), Max: fields.Bound(float64(64 * units.GiB)),
				// Not in the seed: a gateway's syslog and application log.
				Default: 32 * units.MiB,
				Unit:    "bytes",
				Doc:     "Log lines appended a day, one line a second.",
			},
			{
				Name: "log_fsync_interval",
				Kind: fields.Duration,
				Min:  fields.Bound(1), Max: fields.Bound(86400),
				Default: (10 * time.Second).String(),
				Unit:    "s",
				Doc:     "How often, in the device's time, the logger fsyncs its file.",
			},
			{
				Name: "log_rotate_size",
				Kind: fields.Size,
				Min:  fields.Bound(float64(64 * units.KiB)), Max: fields.Bound(float64(64 * units.GiB)),
				Default: 4 * units.MiB,
				Unit:    "bytes",
				Doc:     "Size at which the log is rotated (renamed to .1, the older .1 removed), as logrotate does.",
			},
			{
				Name: "transactions_per_day",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(100000000),
				// One a minute.
				Default: int64(1440),
				Doc:     "SQLite transactions a day (the image's sqlite3, WAL, synchronous=FULL), each inserting a row of row_size; 0: none.",
			},
			{
				Name: "row_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(1 << 20),
				Default: int64(256),
				Unit:    "bytes",
				Doc:     "Size of each row's payload.",
			},
			{
				Name: "config_rewrites_per_day",
				Kind: fields.Int,
				Min:  fields.Bound(0), Max: fields.Bound(10000000),
				// Every quarter hour.
				Default: int64(96),
				Doc:     "Atomic rewrites of the config file a day (write a temporary file, fsync, rename, fsync the directory).",
			},
			{
				Name: "config_size",
				Kind: fields.Size,
				Min:  fields.Bound(1), Max: fields.Bound(float64(units.GiB)),
				Default: 16 * units.KiB,
				Unit:    "bytes",
				Doc:     "Size of the config file.",
			},
			{
				Name: "update_size",
				Kind: fields.Size,
				Min:  fields.Bound(0), Max: fields.Bound(float64(64 * units.GiB)),
				Default: 64 * units.MiB,
				Unit:    "bytes",
				Doc:     "Size of a software update, written as one file and fsynced, the previous one removed; 0: none.",
			},
			{
				Name: "update_interval",
				Kind: fields.Duration,
				Min:  fields.Bound(3600), Max: fields.Bound(3650 * 86400),
				// Weekly.
				Default: (7 * 24 * time.Hour).String(),
				Unit:    "s",
				Doc:     "How often an update comes; a run shorter than that writes the update's share for its span.",
			},
			{
				Name: "trace_limit",
				Kind: fields.Size,
				Min:  fields.Bound(float64(64 * units.KiB)), Max: fields.Bound(float64(units.MiB)),
				// Frames at 115200 baud carry about 10 KiB a second.
				Default: 512 * units.KiB,
				Unit:    "bytes",
				Doc:     "Largest encoded block trace the result carries over the console; a longer trace is reported cut, and not modelled.",
			},
			{
				Name: "cleaner_protection_period",
				Kind: fields.Duration,
				Min:  fields.Bound(0), Max: fields.Bound(365 * 86400),
				// nilfs_cleanerd.conf's stock protection_period.
				Default: time.Hour.String(),
				Unit:    "s",
				Doc:     "For a filesystem whose cleaner runs in user space (nilfs2's nilfs_cleanerd): how long, in the device's time, a written segment is protected from cleaning. The replay runs hundreds of times faster than the clock, so the runner restarts the cleaner with this period scaled to the replay's measured speed (nilfs_cleanerd -p); the stock configuration's is 1h.",
			},
			iterationsField(1, "Runs; each replays the span anew in the same directory, so the filesystem ages."),
			timeoutField(time.Hour),
		},
		Check: checkEndurance,
	}
}

// enduranceTools: the SQLite part runs the image's sqlite3.
func enduranceTools(p Params) []string {
	if n, _ := intParam(p, "transactions_per_day"); n > 0 {
		return []string{"sqlite3"}
	}
	return nil
}

func checkEndurance(p Params) []Problem {
	var probs []Problem
	logDay, _ := intParam(p, "log_bytes_per_day")
	tx, _ := intParam(p, "transactions_per_day")
	cfg, _ := intParam(p, "config_rewrites_per_day")
	upd, _ := intParam(p, "update_size")
	if logDay == 0 && tx == 0 && cfg == 0 && upd == 0 {
		probs = append(probs, Problem{"log_bytes_per_day", "Nothing to write",
			"log_bytes_per_day, transactions_per_day, config_rewrites_per_day and update_size are all 0: give the day something to write."})
	}
	if d, ok := durationParam(p, "duration"); ok && logDay > 0 && logDay*int64(d/time.Second)/86400 > 64*units.GiB {
		probs = append(probs, Problem{"duration", "Too much to write",
			fmt.Sprintf("%s of log at %s a day is more than 64GiB: shorten duration.", d, units.FormatSize(logDay))})
	}
	return probs
}
