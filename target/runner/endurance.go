package runner

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/ioacct"
	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
)

func init() {
	register("endurance", step.Recipe{Schema: 1, Iterate: endurance, Finish: removeWorkDir})
}

// day is a second of the device's life counted in milliseconds: the
// replay's clock, which runs as fast as the storage lets it.
const dayMillis = 86400 * 1000

// enduranceDay is the span a run replays and the streams of writes in it.
type enduranceDay struct {
	span       int64 // ms of the device's time
	logLine    int   // bytes a second of log
	logFsync   int64 // ms between the logger's fsyncs
	rotate     int64
	txEvery    int64 // ms between transactions; 0: none
	rowSize    int
	txPerDay   int64
	cfgEvery   int64 // ms between config rewrites; 0: none
	cfgSize    int64
	updates    []int64 // the time of each update
	updateSize int64   // bytes of each
	// tick is called each minute of the device's time, with the span
	// replayed so far.
	tick func(ms int64)
}

// endurance replays the span in the step's kept directory, which ages from
// one iteration to the next, and records the partition's requests for the
// flash model. The runner's write accounting (Step.AccountIO) counts the
// bytes around it and scales them to a day with DayShare.
func endurance(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	d := enduranceDay{
		span:     p.Duration("duration").Milliseconds(),
		logFsync: p.Duration("log_fsync_interval").Milliseconds(),
		rotate:   p.Int("log_rotate_size"),
		rowSize:  int(p.Int("row_size")),
		txPerDay: p.Int("transactions_per_day"),
		cfgSize:  p.Int("config_size"),
	}
	logDay, cfgPerDay := p.Int("log_bytes_per_day"), p.Int("config_rewrites_per_day")
	updateSize, updateEvery := p.Int("update_size"), p.Duration("update_interval").Milliseconds()
	limit := int(p.Int("trace_limit"))
	protect := p.Duration("cleaner_protection_period")
	if p.Err != nil {
		return nil, p.Err
	}
	d.logLine = int(logDay / 86400)
	if d.txPerDay > 0 {
		d.txEvery = max(dayMillis/d.txPerDay, 1)
	}
	if cfgPerDay > 0 {
		d.cfgEvery = max(dayMillis/cfgPerDay, 1)
	}
	d.updates, d.updateSize = updatePlan(d.span, updateSize, updateEvery)
	dir, err := e.KeptWorkDir()
	if err != nil {
		return nil, err
	}
	out := &step.Outcome{DayShare: float64(d.span) / dayMillis}
	mdir, err := e.MountPart(e.Part)
	if err != nil {
		return nil, err
	}
	var clock *linux.CleanerClock
	if !e.NoCleanerStarts() && !e.Part.ReadOnly {
		clock = linux.NewCleanerClock(e.Part, mdir, protect)
		d.tick = clock.Tick
	}
	capture, err := ioacct.StartBlockCapture(e.Part, limit)
	if err != nil {
		out.Attr("block_trace_lost", "not available: "+err.Error())
	}
	start := time.Now()
	werr := d.run(ctx, dir, workload.Pattern{Salt: fmt.Sprintf("%s/%s/%d", e.Step.Test, e.Step.Case, iter)})
	if werr == nil {
		werr = linux.SyncFS(dir)
	}
	elapsed := time.Since(start)
	if capture != nil {
		capture.Finish(out)
	}
	if note := clock.Finish(elapsed, d.span); note != "" {
		out.Attr("cleaner_protection", note)
	}
	if werr != nil {
		return nil, werr
	}
	out.Metric("day_fraction", out.DayShare, "")
	out.Metric("elapsed", elapsed.Seconds(), "s")
	out.Metric("speedup", float64(d.span)/1000/elapsed.Seconds(), "x")
	out.Attr("day", d.describe())
	flashModel(out, e)
	return out, nil
}

// flashModel passes on what the host's flash model needs of the plan: the
// partition's size and flash geometry, and the board's endurance rating.
func flashModel(out *step.Outcome, e *step.Env) {
	out.Attr("partition_bytes", strconv.FormatInt(e.Part.Size, 10))
	if e.Part.EraseBlock > 0 {
		out.Attr("flash_erase_block", strconv.FormatInt(e.Part.EraseBlock, 10))
	}
	if e.Part.PageSize > 0 {
		out.Attr("flash_page_size", strconv.FormatInt(e.Part.PageSize, 10))
	}
	en := e.Plan.Board.Endurance
	if en == nil {
		return
	}
	out.Attr("flash_capacity", strconv.FormatInt(en.Capacity, 10))
	out.Attr("flash_pe_cycles", strconv.FormatInt(en.PECycles, 10))
	out.Attr("flash_over_provisioning", strconv.FormatFloat(en.OverProvisioning, 'g', -1, 64))
	if en.WritesPerDay > 0 {
		out.Attr("flash_writes_per_day", strconv.FormatInt(en.WritesPerDay, 10))
	}
}

// updatePlan spreads the updates of the span: whole ones at their times,
// or, in a span shorter than the interval, the span's share of one in the
// middle.
func updatePlan(span, size, every int64) ([]int64, int64) {
	if size == 0 || every <= 0 {
		return nil, 0
	}
	n := span / every
	if n == 0 {
		return []int64{span / 2}, max(size*span/every, 1)
	}
	var at []int64
	for i := range n {
		at = append(at, (2*i+1)*span/(2*n))
	}
	return at, size
}

func (d *enduranceDay) describe() string {
	return fmt.Sprintf("%s of the device's life: %d B of log a second, fsync every %s; %d transactions a day; a config of %d B every %s; %d updates of %d B",
		time.Duration(d.span)*time.Millisecond, d.logLine, time.Duration(d.logFsync)*time.Millisecond, d.txPerDay,
		d.cfgSize, time.Duration(d.cfgEvery)*time.Millisecond, len(d.updates), d.updateSize)
}

// run replays the span: its events in the order of the device's clock.
func (d *enduranceDay) run(ctx context.Context, dir string, pat workload.Pattern) error {
	lg, err := openAppLog(filepath.Join(dir, "app.log"), d.rotate, pat)
	if err != nil {
		return err
	}
	defer lg.close()
	var db *sqlStream
	if d.txEvery > 0 {
		if db, err = startSQLStream(ctx, filepath.Join(dir, "app.db"), d.rowSize, d.txPerDay, pat); err != nil {
			return err
		}
		defer db.close()
	}
	nextTx, nextCfg, nextUpdate := d.txEvery, d.cfgEvery, 0
	cfgVersion := 0
	for t := int64(1000); t <= d.span; t += 1000 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.tick != nil && t%60000 == 0 {
			d.tick(t)
		}
		if d.logLine > 0 {
			if err := lg.line(d.logLine); err != nil {
				return err
			}
			if t%d.logFsync < 1000 {
				if err := lg.sync(); err != nil {
					return err
				}
			}
		}
		for ; db != nil && nextTx <= t; nextTx += d.txEvery {
			if err := db.transaction(); err != nil {
				return err
			}
		}
		for ; d.cfgEvery > 0 && nextCfg <= t; nextCfg += d.cfgEvery {
			cfgVersion++
			if err := rewriteConfig(dir, d.cfgSize, cfgVersion, pat); err != nil {
				return err
			}
		}
		for ; nextUpdate < len(d.updates) && d.updates[nextUpdate] <= t; nextUpdate++ {
			if err := writeUpdate(dir, d.updateSize, nextUpdate, pat); err != nil {
				return err
			}
		}
	}
	if err := lg.sync(); err != nil {
		return err
	}
	if db != nil {
		return db.close()
	}
	return nil
}

// appLog is an application's log file: lines appended, fsynced now and
// then, rotated by size.
type appLog struct {
	path   string
	f      *os.File
	size   int64
	rotate int64
	text   io.Reader
	raw    []byte
	buf    []byte
}

func openAppLog(path string, rotate int64, pat workload.Pattern) (*appLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &appLog{path: path, f: f, size: st.Size(), rotate: rotate, text: pat.Stream("log")}, nil
}

// line appends a line of n bytes, printable as a log's: hex of the
// pattern, and a newline.
func (l *appLog) line(n int) error {
	raw := (n + 1) / 2
	if cap(l.raw) < raw {
		l.raw, l.buf = make([]byte, raw), make([]byte, 2*raw)
	}
	l.text.Read(l.raw[:raw])
	hex.Encode(l.buf, l.raw[:raw])
	b := l.buf[:n]
	b[n-1] = '\n'
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("appending to %s: %w", l.path, err)
	}
	l.size += int64(n)
	if l.size >= l.rotate {
		return l.rotateNow()
	}
	return nil
}

func (l *appLog) sync() error { return l.f.Sync() }

// rotateNow renames the log to .1, the older .1 gone, as logrotate does
// with rotate 1, and starts a new one.
func (l *appLog) rotateNow() error {
	if err := l.f.Sync(); err != nil {
		return err
	}
	if err := l.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return err
	}
	if err := atomicfile.SyncDir(filepath.Dir(l.path)); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	l.f, l.size = f, 0
	return nil
}

func (l *appLog) close() error { return l.f.Close() }

// rewriteConfig writes version n of the config the way embedded software
// does: a temporary file, fsync, rename over the old one, fsync the
// directory.
func rewriteConfig(dir string, size int64, n int, pat workload.Pattern) error {
	tmp, final := filepath.Join(dir, "config.tmp"), filepath.Join(dir, "config")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.CopyN(f, pat.Stream(fmt.Sprintf("config-%d", n)), size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return atomicfile.SyncDir(dir)
}

// writeUpdate writes update i as one file in 1MiB writes, fsyncs it and
// puts it in place of the previous one.
func writeUpdate(dir string, size int64, i int, pat workload.Pattern) error {
	tmp, final := filepath.Join(dir, "update.new"), filepath.Join(dir, "update.img")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	src := pat.Stream(fmt.Sprintf("update-%d", i))
	for left := size; left > 0 && err == nil; left -= int64(len(buf)) {
		b := buf[:min(left, int64(len(buf)))]
		src.Read(b)
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the update: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return atomicfile.SyncDir(dir)
}

// sqlStream is an application's SQLite database: one sqlite3 process,
// fed a transaction at a time on its input, in WAL mode with
// synchronous=FULL, keeping a day of rows.
type sqlStream struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	errs   *bytes.Buffer
	row    []byte
	keep   int64
	n      int64
	pat    io.Reader
	closed bool
}

func startSQLStream(ctx context.Context, db string, rowSize int, keep int64, pat workload.Pattern) (*sqlStream, error) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		return nil, step.Skipf("endurance's SQLite transactions run the image's sqlite3, and the image has none " +
			"(Buildroot: BR2_PACKAGE_SQLITE; Yocto: the sqlite3 package); set transactions_per_day = 0 to leave them out")
	}
	s := &sqlStream{errs: &bytes.Buffer{}, row: make([]byte, (rowSize+1)/2), keep: keep, pat: pat.Stream("rows")}
	s.cmd = exec.CommandContext(ctx, bin, "-bail", db)
	s.cmd.Stdout, s.cmd.Stderr = s.errs, s.errs
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("sqlite3: %w", err)
	}
	_, err = io.WriteString(s.in, "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\n"+
		"CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v TEXT NOT NULL);\n")
	if err != nil {
		s.close()
		return nil, fmt.Errorf("sqlite3: %w", err)
	}
	return s, nil
}

// transaction inserts a row and drops the rows older than a day's.
func (s *sqlStream) transaction() error {
	s.n++
	s.pat.Read(s.row)
	_, err := fmt.Fprintf(s.in, "BEGIN;\nINSERT INTO t(v) VALUES('%x');\nDELETE FROM t WHERE id <= (SELECT max(id) FROM t) - %d;\nCOMMIT;\n", s.row, s.keep)
	if err != nil {
		return fmt.Errorf("sqlite3 stopped: %v: %s", err, strings.TrimSpace(workload.LastLine(s.errs.String())))
	}
	return nil
}

// close ends the input and waits for sqlite3 to commit the rest.
func (s *sqlStream) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.in.Close()
	err := s.cmd.Wait()
	if msg := s.errs.String(); err != nil || strings.Contains(msg, "Error") {
		return errors.Join(err, fmt.Errorf("sqlite3: %s", strings.TrimSpace(workload.LastLine(msg))))
	}
	return nil
}
