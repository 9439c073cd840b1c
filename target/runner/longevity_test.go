package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/workload"
)

func TestUpdatePlan(t *testing.T) {
	week := int64(7 * dayMillis)
	at, size := updatePlan(2*3600*1000, 64<<20, week)
	if len(at) != 1 || at[0] != 3600*1000 || size != (64<<20)*2/168 {
		t.Errorf("2h of a weekly update: at %v, %d bytes", at, size)
	}
	at, size = updatePlan(2*week, 64<<20, week)
	if len(at) != 2 || at[0] != week/2 || at[1] != 3*week/2 || size != 64<<20 {
		t.Errorf("two weeks: at %v, %d bytes", at, size)
	}
	if at, _ := updatePlan(week, 0, week); at != nil {
		t.Errorf("no update size: %v", at)
	}
}

func TestAppLogRotates(t *testing.T) {
	dir := t.TempDir()
	lg, err := openAppLog(filepath.Join(dir, "app.log"), 1000, workload.Pattern{Salt: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for range 25 {
		if err := lg.line(99); err != nil {
			t.Fatal(err)
		}
	}
	lg.close()
	old, _ := os.ReadFile(filepath.Join(dir, "app.log.1"))
	cur, _ := os.ReadFile(filepath.Join(dir, "app.log"))
	// 10 lines of 99 bytes make 990, the 11th rotates: 1089 in .1 twice
	// over, the last 3 lines in the new log.
	if len(old) != 11*99 || len(cur) != 3*99 || strings.Count(string(cur), "\n") != 3 {
		t.Errorf("after rotation: .1 has %d bytes, the log %d", len(old), len(cur))
	}
	for _, c := range cur[:98] {
		if !strings.ContainsRune("0123456789abcdef", rune(c)) {
			t.Fatalf("a log line is not printable: %q", cur[:98])
		}
	}
}

// TestEnduranceDayWrites replays a small span without SQLite and checks
// what it leaves: the config's last version, the update, the log.
func TestEnduranceDayWrites(t *testing.T) {
	dir := t.TempDir()
	d := enduranceDay{span: 3600 * 1000, logLine: 100, logFsync: 10000, rotate: 1 << 20, cfgEvery: 900 * 1000, cfgSize: 4096}
	d.updates, d.updateSize = updatePlan(d.span, 7*24<<20, 7*dayMillis)
	if err := d.run(context.Background(), dir, workload.Pattern{Salt: "day"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "app.log")); err != nil || st.Size() != 3600*100 {
		t.Errorf("the log: %v %v", st, err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config"))
	want := make([]byte, 4096)
	workload.Pattern{Salt: "day"}.Stream("config-4").Read(want)
	if string(cfg) != string(want) {
		t.Error("the config is not its 4th version after an hour of quarter-hourly rewrites")
	}
	if st, err := os.Stat(filepath.Join(dir, "update.img")); err != nil || st.Size() != 1<<20 {
		t.Errorf("an hour's share of a weekly 168MiB update: %v %v", st, err)
	}
}
