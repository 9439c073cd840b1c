package runner

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
)

func init() {
	register("sqlite_tps", step.Recipe{Schema: 1, Iterate: sqliteTPS, Finish: removeWorkDir})
}

// sqliteTPS measures SQLite transactions per second, Androbench style, with
// the sqlite3 command the image ships: the runner links no SQLite of its
// own, so it stays small and measures the SQLite (version, build options,
// VFS) the board really has. The table is made and, for update and delete,
// filled outside the measurement; then one sqlite3 process runs the
// transactions, each BEGIN, rows_per_transaction statements, COMMIT. The
// time of a sqlite3 run that only opens the database and sets the pragmas
// is taken off, so process start-up does not count.
func sqliteTPS(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	p := e.P
	op, n, rows := p.String("operation"), p.Int("transactions"), p.Int("rows_per_transaction")
	size, journal, sync := p.Int("row_size"), p.String("journal_mode"), p.String("synchronous")
	page := p.Int("page_size")
	if p.Err != nil {
		return nil, p.Err
	}
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		return nil, step.Skipf("sqlite_tps runs the image's sqlite3 command, and the image has none " +
			"(Buildroot: BR2_PACKAGE_SQLITE; Yocto: the sqlite3 package)")
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	db := filepath.Join(dir, "tps.db")
	pragmas := fmt.Sprintf("PRAGMA journal_mode=%s;\nPRAGMA synchronous=%s;\n", journal, sync)

	var setup strings.Builder
	fmt.Fprintf(&setup, "PRAGMA page_size=%d;\n%sCREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n", page, pragmas)
	if op != "insert" {
		fmt.Fprintf(&setup, "BEGIN;\nWITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d) "+
			"INSERT INTO t(id, v) SELECT i, printf('%%.*c', %d, 'x') FROM c;\nCOMMIT;\n", n*rows, size)
	}
	if _, err := workload.SQL(ctx, bin, db, setup.String()); err != nil {
		return nil, err
	}
	if err := linux.SyncFS(dir); err != nil {
		return nil, err
	}

	var work strings.Builder
	work.WriteString(pragmas)
	id := int64(1)
	for range n {
		work.WriteString("BEGIN;\n")
		for range rows {
			switch op {
			case "insert":
				fmt.Fprintf(&work, "INSERT INTO t(v) VALUES(printf('%%.*c', %d, 'x'));\n", size)
			case "update":
				fmt.Fprintf(&work, "UPDATE t SET v = printf('%%.*c', %d, 'y') WHERE id = %d;\n", size, id)
			case "delete":
				fmt.Fprintf(&work, "DELETE FROM t WHERE id = %d;\n", id)
			default:
				return nil, fmt.Errorf("unknown operation %q", op)
			}
			id++
		}
		work.WriteString("COMMIT;\n")
	}
	e.Quiesce()
	base, err := workload.SQL(ctx, bin, db, pragmas)
	if err != nil {
		return nil, err
	}
	elapsed, err := workload.SQL(ctx, bin, db, work.String())
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, bin, db, "SELECT count(*) FROM t;").Output()
	if err != nil {
		return nil, fmt.Errorf("counting rows: %w", err)
	}
	count, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	want := map[string]int64{"insert": n * rows, "update": n * rows, "delete": 0}[op]
	if count != want {
		return nil, fmt.Errorf("the table holds %d rows after the %s transactions, want %d", count, op, want)
	}
	measured := elapsed - base
	if measured <= 0 {
		measured = elapsed
	}
	o := &step.Outcome{}
	o.Metric("tps", float64(n)/measured.Seconds(), "tx/s")
	o.Metric("transactions", float64(n), "")
	o.Metric("elapsed", measured.Seconds(), "s")
	o.Metric("startup", base.Seconds(), "s")
	if v, err := exec.CommandContext(ctx, bin, "--version").Output(); err == nil {
		o.Attr("sqlite_version", strings.Fields(string(v) + " ?")[0])
	}
	return o, nil
}
