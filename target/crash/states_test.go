package crash

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
)

// runWorkload writes a workload into a fresh directory and returns it with
// the marks it set, in order.
func runWorkload(t *testing.T, w *crashWorkload) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var marks []string
	err := w.run(context.Background(), dir, func(text string) error {
		if strings.ContainsAny(text, " \n") || len(text) > 400 {
			t.Errorf("mark %q would not pass as one device-mapper message argument", text)
		}
		marks = append(marks, text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, marks
}

func durablesOf(t *testing.T, marks []string) *durables {
	t.Helper()
	d := newDurables()
	for _, m := range marks {
		if err := d.add(m); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// Each workload, left whole, checks Intact against all its marks; with
// the marks of only part of it, too, where the workload only adds (what
// it wrote after a state is allowed to be there).
func TestCrashWorkloadsCheckIntact(t *testing.T) {
	for _, kind := range []string{"small_files", "large_file", "fsync", "rename", "churn", "sqlite"} {
		t.Run(kind, func(t *testing.T) {
			if _, err := exec.LookPath("sqlite3"); err != nil && kind == "sqlite" {
				testenv.Missing(t, "sqlite3")
			}
			w := &crashWorkload{kind: kind, ops: 7, size: 6000, large: 70000, pat: workload.Pattern{Salt: "salt/" + kind}}
			dir, marks := runWorkload(t, w)
			if len(marks) < 5 {
				t.Fatalf("%d marks for 7 operations: %v", len(marks), marks)
			}
			counts := []int{len(marks), len(marks) / 2}
			if kind == "churn" {
				counts = counts[:1] // its later removals are not a state's
			}
			for _, n := range counts {
				rep, err := w.check(dir, durablesOf(t, marks[:n]))
				if err != nil {
					t.Fatal(err)
				}
				if rep.Class != DataIntact {
					t.Errorf("after %d of %d marks: %s: %v", n, len(marks), rep.Class, rep.Problems)
				}
			}
		})
	}
}

// The checks catch what a bad state holds.
func TestCrashWorkloadChecksFail(t *testing.T) {
	w := &crashWorkload{kind: "rename", ops: 5, size: 5000, pat: workload.Pattern{Salt: "s"}}
	dir, marks := runWorkload(t, w)
	d := durablesOf(t, marks)
	cfg := filepath.Join(dir, configName)
	check := func(want string) {
		t.Helper()
		rep, err := w.check(dir, d)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Class != want {
			t.Errorf("%s, want %s: %v", rep.Class, want, rep.Problems)
		}
	}
	os.WriteFile(cfg, w.configContent(3), 0o644) // an older version
	check(DataLostSynced)
	os.WriteFile(cfg, w.configContent(5)[:100], 0o644) // torn
	check(DataCorrupt)
	os.WriteFile(cfg, nil, 0o644) // the zero-length file of a rename without fsync
	check(DataCorrupt)
	w.noSync = true // what the workload never synced, POSIX lets go
	check(DataLostUnsynced)
	w.noSync = false
	os.Remove(cfg)
	check(DataLostSynced)

	c := &crashWorkload{kind: "churn", ops: 6, size: 3000, pat: workload.Pattern{Salt: "c"}}
	dir, marks = runWorkload(t, c)
	d = durablesOf(t, marks)
	if len(d.removed) != 2 {
		t.Fatalf("removed %v, want 2 files", d.removed)
	}
	for name := range d.removed {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if rep, _ := c.check(dir, d); rep.Class != DataLostSynced {
		t.Errorf("a durably removed file back: %s", rep.Class)
	}
}

// The SQLite check wants every durable transaction's row, intact.
func TestCrashSQLiteCheckFails(t *testing.T) {
	testenv.Tool(t, "sqlite3")
	w := &crashWorkload{kind: "sqlite", ops: 4, pat: workload.Pattern{Salt: "q"}}
	dir, marks := runWorkload(t, w)
	d := durablesOf(t, marks)
	db := filepath.Join(dir, dbName)
	sql := func(q string) {
		t.Helper()
		if out, err := exec.Command("sqlite3", db, q).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", q, err, out)
		}
	}
	sql("UPDATE t SET v = 'x' WHERE id = 2;")
	if rep, _ := w.check(dir, d); rep.Class != DataCorrupt {
		t.Errorf("a changed row: %s %v", rep.Class, rep.Problems)
	}
	sql("DELETE FROM t WHERE id >= 2;")
	if rep, _ := w.check(dir, d); rep.Class != DataLostSynced {
		t.Errorf("lost durable rows: %s %v", rep.Class, rep.Problems)
	}
	os.WriteFile(db, []byte("not a database, but long enough to be read as one......................................................................"), 0o644)
	os.Remove(db + "-wal")
	if rep, _ := w.check(dir, d); rep.Class != DataCorrupt {
		t.Errorf("a garbled database: %s %v", rep.Class, rep.Problems)
	}
}

func TestDurablesRefuseBadMarks(t *testing.T) {
	for _, m := range []string{"fsb:s:name", "fsb:s:name:-1", "fsb:x:y", "fsb:v::3"} {
		if err := newDurables().add(m); err == nil {
			t.Errorf("mark %q accepted", m)
		}
	}
	d := newDurables()
	for _, m := range []string{logwrites.FSMark, "other", logwrites.EndMark} {
		if err := d.add(m); err != nil || d.last != "" {
			t.Errorf("mark %q: %v, last %q", m, err, d.last)
		}
	}
}

// A results file cut in the middle of a line gives the states before it.
func TestStateResultsResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	s, err := appendStateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := s.add(stateResult{N: i, Applied: i * 10, Consistency: ConsClean, Data: DataIntact}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"n":4,"applied":40,"consis`)
	f.Close()
	got, err := readStateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[3].Consistency != ConsClean || got[3].Applied != 30 {
		t.Errorf("resumed %v", got)
	}
}

// Between a churn removal's unlink and the mark of its durable removal,
// the file may be gone or still there: neither loses synced data. After
// the mark, a file that is back is LostSynced.
func TestChurnRemovalInFlight(t *testing.T) {
	w := &crashWorkload{kind: "churn", ops: 3, size: 6000, pat: workload.Pattern{Salt: "salt/churn"}}
	dir, marks := runWorkload(t, w)
	u := slices.IndexFunc(marks, func(m string) bool { return strings.HasPrefix(m, markPrefix+"u:") })
	if u < 0 || u+1 >= len(marks) || !strings.HasPrefix(marks[u+1], markPrefix+"d:") {
		t.Fatalf("no removal marked before and after its unlink: %v", marks)
	}
	name := strings.TrimPrefix(marks[u], markPrefix+"u:")
	// The file is gone (the workload removed it): the state right after
	// the unlink mark, before the durable one, is Intact.
	if rep, _ := w.check(dir, durablesOf(t, marks[:u+1])); rep.Class != DataIntact {
		t.Errorf("removed before its mark: %s: %v", rep.Class, rep.Problems)
	}
	// Back with its synced bytes, as a state that lost the unlink holds it.
	if err := os.WriteFile(filepath.Join(dir, name), w.pat.Expected(name).At(0, 6000), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, _ := w.check(dir, durablesOf(t, marks[:u+1])); rep.Class != DataIntact {
		t.Errorf("still there before its mark: %s: %v", rep.Class, rep.Problems)
	}
	if rep, _ := w.check(dir, durablesOf(t, marks[:u+2])); rep.Class != DataLostSynced {
		t.Errorf("back after its durable removal: %s, want LostSynced", rep.Class)
	}
}

// The checked states of an update test and of a crash_states test of the
// same names go to files of their own.
func TestResultsFilePerRecipe(t *testing.T) {
	env := func(recipe string) *step.Env {
		return &step.Env{StateDir: "/state", Step: runplan.Step{Recipe: recipe, Test: "slots", Case: "fsync"}}
	}
	if a, b := crashResultsPath(env("crash_states")), crashResultsPath(env("update")); a == b {
		t.Errorf("both recipes keep their states in %s", a)
	}
}
