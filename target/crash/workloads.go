package crash

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/logwrites"
)

// crash_states' workloads write into a directory of the filesystem on the
// log-writes device and, each time they count something durable, set a
// mark in the write log that says what: the log then tells, for every
// state, what the workload had been promised before it.
//
//	fsb:s:<name>:<size>   the first size bytes of name are durable
//	fsb:u:<name>          name is being removed: it may be gone
//	fsb:d:<name>          the removal of name is durable
//	fsb:v:<name>:<n>      version n of name is durable (rename)
//	fsb:t:<db>:<n>        transaction n of the database is durable (sqlite)
//
// Names never hold ':' or spaces (a device-mapper message splits on
// spaces).

const markPrefix = "fsb:"

// marker sets marks in the write log.
type marker func(text string) error

// markLog is a durableLog that records in the write log.
type markLog struct{ mark marker }

func (m markLog) Synced(name string, size int64) error {
	return m.mark(fmt.Sprintf("%ss:%s:%d", markPrefix, name, size))
}

// durables is what the marks before a state promise.
type durables struct {
	synced   map[string]int64
	removed  map[string]bool
	versions map[string]int
	last     string // the last mark, the workload's last operation before the state
}

func newDurables() *durables {
	return &durables{synced: map[string]int64{}, removed: map[string]bool{}, versions: map[string]int{}}
}

// add reads one mark; marks not of the workload are ignored.
func (d *durables) add(mark string) error {
	rest, ok := strings.CutPrefix(mark, markPrefix)
	if !ok || mark == logwrites.FSMark || mark == logwrites.OrderMark {
		return nil
	}
	d.last = mark
	kind, arg, _ := strings.Cut(rest, ":")
	switch kind {
	case "s", "v", "t":
		name, num, ok := strings.Cut(arg, ":")
		n, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || n < 0 || name == "" {
			return fmt.Errorf("bad workload mark %q in the write log", mark)
		}
		if kind == "s" {
			d.synced[name] = max(d.synced[name], n)
			delete(d.removed, name)
		} else {
			d.versions[name] = max(d.versions[name], int(n))
		}
	case "u":
		// From the unlink to the mark of its durable removal, the file
		// may be there or not: its synced bytes are no longer owed.
		delete(d.synced, arg)
	case "d":
		delete(d.synced, arg)
		d.removed[arg] = true
	default:
		return fmt.Errorf("bad workload mark %q in the write log", mark)
	}
	return nil
}

// crashWorkload is one workload: it writes, and later checks a state.
type crashWorkload struct {
	kind   string
	ops    int
	size   int64 // file_size
	large  int64
	noSync bool
	// dirOnly: the rename workload fsyncs the directory after the rename
	// but not the new file, and trusts the filesystem with the order.
	dirOnly bool
	pat     workload.Pattern
}

func (w *crashWorkload) writer(dir string, mark marker) *workload.Writer {
	return &workload.Writer{Dir: dir, Pattern: w.pat, Log: markLog{mark}, Kind: w.kind,
		Small: w.size, Large: w.large, Limit: w.ops, NoSync: w.noSync}
}

// run writes the workload into dir.
func (w *crashWorkload) run(ctx context.Context, dir string, mark marker) error {
	switch w.kind {
	case "small_files", "large_file", "fsync":
		return w.writer(dir, mark).UntilCut(ctx)
	case "rename":
		return w.rename(ctx, dir, mark)
	case "churn":
		return w.churn(ctx, dir, mark)
	case "sqlite":
		return w.sqlite(ctx, dir, mark)
	}
	return fmt.Errorf("unknown workload %q", w.kind)
}

// check sorts the workload's files in dir against what d promised.
func (w *crashWorkload) check(dir string, d *durables) (*DataReport, error) {
	switch w.kind {
	case "rename":
		return w.checkRename(dir, d), nil
	case "sqlite":
		return w.checkSQLite(dir, d), nil
	case "churn":
		rep, err := CheckData(dir, w.pat, d.synced, w.intended)
		if err != nil {
			return nil, err
		}
		for name := range d.removed {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				rep.Class = worseData(rep.Class, DataLostSynced)
				rep.problem("%s: its removal was durable, and it is back", name)
			}
		}
		return rep, nil
	}
	return CheckData(dir, w.pat, d.synced, w.intended)
}

func (w *crashWorkload) intended(name string) int64 {
	return w.writer("", nil).Intended(name)
}

// sync fsyncs f unless the workload is the negative control.
func (w *crashWorkload) sync(f *os.File) error {
	if w.noSync {
		return nil
	}
	return f.Sync()
}

func (w *crashWorkload) syncDir(dir string) error {
	if w.noSync {
		return nil
	}
	return atomicfile.SyncDir(dir)
}

const configName = "config"

// configContent is version n of the config file: a header line naming the
// version, then the version's pattern, file_size bytes in all.
func (w *crashWorkload) configContent(n int) []byte {
	head := fmt.Sprintf("fsbench-config %d\n", n)
	b := make([]byte, max(w.size, int64(len(head))))
	w.pat.Stream(fmt.Sprintf("%s-v%d", configName, n)).Read(b)
	copy(b, head)
	return b
}

// rename rewrites the config file ops times the way embedded software
// updates its settings: write a temporary file, fsync it (unless dirOnly),
// rename it over the file, fsync the directory; then the version counts as
// durable. Version 0, the factory settings, is in place and synced first,
// so that every update replaces a file, the pattern filesystems order
// (ext4's auto_da_alloc acts on a rename over an existing file only).
func (w *crashWorkload) rename(ctx context.Context, dir string, mark marker) error {
	tmp, final := filepath.Join(dir, configName+".tmp"), filepath.Join(dir, configName)
	if err := atomicfile.WriteFile(final, w.configContent(0), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", final, err)
	}
	if err := mark(fmt.Sprintf("%sv:%s:0", markPrefix, configName)); err != nil {
		return err
	}
	for n := 1; n <= w.ops; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(w.configContent(n))
		if err == nil && !w.dirOnly {
			err = w.sync(f)
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
		if err := w.syncDir(dir); err != nil {
			return err
		}
		if err := mark(fmt.Sprintf("%sv:%s:%d", markPrefix, configName, n)); err != nil {
			return err
		}
	}
	return nil
}

// checkRename: the config file is always one whole version, never torn,
// and never older than the last durable one.
func (w *crashWorkload) checkRename(dir string, d *durables) *DataReport {
	rep := &DataReport{Class: DataIntact}
	durable, has := d.versions[configName]
	if has {
		rep.SyncedFiles, rep.SyncedBytes = 1, w.size
	}
	b, err := os.ReadFile(filepath.Join(dir, configName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if has {
			rep.Class, rep.MissingSynced, rep.LostSynced = DataLostSynced, 1, w.size
			rep.problem("%s: missing, after version %d was durable", configName, durable)
		}
		return rep
	case err != nil:
		rep.Class, rep.ReadErrors = DataCorrupt, 1
		rep.problem("%s: %v", configName, err)
		return rep
	}
	rep.Files = 1
	head, _, _ := bytes.Cut(b, []byte{'\n'})
	num, ok := strings.CutPrefix(string(head), "fsbench-config ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 0 || n > w.ops || !bytes.Equal(b, w.configContent(n)) {
		rep.CorruptFiles = 1
		// The version was synced before its rename, or the workload
		// trusts the filesystem to order its data before the rename
		// (dirOnly): a torn file is corruption, the update was not
		// atomic. Without any fsync it is what POSIX allows.
		class := DataCorrupt
		if w.noSync {
			class = DataLostUnsynced
		}
		rep.Class = worseData(rep.Class, class)
		rep.problem("%s: not a whole version (%d bytes, starts %q)", configName, len(b), clip(b, 24))
		if w.dirOnly {
			rep.problem("the rename reached the disk before the new file's data")
		}
		return rep
	}
	if n < durable {
		rep.Class, rep.LostSynced = DataLostSynced, w.size
		rep.problem("%s: version %d, older than the durable version %d", configName, n, durable)
	}
	return rep
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// churn creates files of file_size, each made durable, and every third
// operation removes the oldest file left, as a spool or a cache does.
func (w *crashWorkload) churn(ctx context.Context, dir string, mark marker) error {
	var alive []string
	for n := 1; n <= w.ops; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n%3 == 0 && len(alive) > 0 {
			name := alive[0]
			alive = alive[1:]
			if err := mark(markPrefix + "u:" + name); err != nil {
				return err
			}
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
			if err := w.syncDir(dir); err != nil {
				return err
			}
			if err := mark(markPrefix + "d:" + name); err != nil {
				return err
			}
			continue
		}
		// Created and made durable as small_files does it.
		name := fmt.Sprintf("small-%06d", n)
		rw := w.writer(dir, mark)
		f, err := rw.WriteFile(ctx, name, w.size)
		if err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		err = rw.Durable(f, name, w.size)
		f.Close()
		if err != nil {
			return err
		}
		alive = append(alive, name)
	}
	return nil
}

const dbName = "crash.db"

// rowValue is the text of row id: its pattern, in hex.
func (w *crashWorkload) rowValue(id int) string {
	b := make([]byte, 128)
	w.pat.Stream(fmt.Sprintf("row-%d", id)).Read(b)
	return hex.EncodeToString(b)
}

// sqlite runs ops transactions, each inserting one row, with the image's
// sqlite3 in WAL mode and synchronous=FULL, where a commit that returned
// is durable; one sqlite3 process per transaction, so that its return
// is the commit's.
func (w *crashWorkload) sqlite(ctx context.Context, dir string, mark marker) error {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		return step.Skipf("the sqlite workload runs the image's sqlite3 command, and the image has none " +
			"(Buildroot: BR2_PACKAGE_SQLITE; Yocto: the sqlite3 package)")
	}
	sync := "FULL"
	if w.noSync {
		sync = "OFF"
	}
	db := filepath.Join(dir, dbName)
	if _, err := workload.SQL(ctx, bin, db, "PRAGMA journal_mode=WAL;\nCREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL);\n"); err != nil {
		return err
	}
	for n := 1; n <= w.ops; n++ {
		tx := fmt.Sprintf("PRAGMA synchronous=%s;\nBEGIN;\nINSERT INTO t(id, v) VALUES(%d, '%s');\nCOMMIT;\n", sync, n, w.rowValue(n))
		if _, err := workload.SQL(ctx, bin, db, tx); err != nil {
			return err
		}
		if err := mark(fmt.Sprintf("%st:%s:%d", markPrefix, dbName, n)); err != nil {
			return err
		}
	}
	return nil
}

// checkSQLite opens the database as the application would after the
// reboot (SQLite recovers from its WAL), checks its integrity, and wants
// rows 1 to m, each with its value, m at least the last durable
// transaction.
func (w *crashWorkload) checkSQLite(dir string, d *durables) *DataReport {
	rep := &DataReport{Class: DataIntact}
	durable := d.versions[dbName]
	if durable > 0 {
		rep.SyncedFiles, rep.SyncedBytes = 1, int64(durable)
	}
	db := filepath.Join(dir, dbName)
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		if durable > 0 {
			rep.Class, rep.MissingSynced = DataLostSynced, 1
			rep.problem("%s: missing, after transaction %d was durable", dbName, durable)
		}
		return rep
	}
	rep.Files = 1
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		rep.Class = DataCorrupt
		rep.problem("sqlite3 is gone: %v", err)
		return rep
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-bail", db, "PRAGMA integrity_check;", "SELECT id || ' ' || v FROM t ORDER BY id;").CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	switch {
	case err != nil && durable == 0 && strings.Contains(string(out), "no such table"):
		return rep // the table's creation was not durable yet
	case err != nil:
		rep.Class, rep.ReadErrors = DataCorrupt, 1
		rep.problem("%s: sqlite3: %v: %s", dbName, err, clip([]byte(workload.LastLine(string(out))), 120))
		return rep
	case len(lines) == 0 || lines[0] != "ok":
		rep.Class, rep.CorruptFiles = DataCorrupt, 1
		rep.problem("%s: integrity_check: %s", dbName, clip(out, 120))
		return rep
	}
	rows := 0
	for _, line := range lines[1:] {
		id, v, _ := strings.Cut(line, " ")
		if id != strconv.Itoa(rows+1) || v != w.rowValue(rows+1) {
			rep.Class, rep.CorruptFiles = DataCorrupt, 1
			rep.problem("%s: row %d is %q", dbName, rows+1, clip([]byte(line), 40))
			return rep
		}
		rows++
	}
	if rows < durable {
		rep.Class, rep.LostSynced = DataLostSynced, int64(durable-rows)
		rep.problem("%s: %d rows, after transaction %d was durable", dbName, rows, durable)
	}
	return rep
}
