package runner

import (
	"encoding/json"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestSQLiteTPS(t *testing.T) {
	testenv.Tool(t, "sqlite3")
	part := loopPart(t, "ext4", 64<<20)
	step := func(op, journal string) runplan.Step {
		return runplan.Step{Recipe: "sqlite_tps", Test: "tps", Case: op + "-" + journal, On: "bench", Params: runplan.Params{
			"operation": op, "transactions": json.Number("50"), "rows_per_transaction": json.Number("2"),
			"row_size": json.Number("100"), "journal_mode": journal, "synchronous": "FULL",
			"page_size": json.Number("4096"), "timeout": "2m"}}
	}
	p := planFor([]runplan.Partition{*part}, step("insert", "PERSIST"), step("update", "WAL"), step("delete", "DELETE"))
	console, st, err := runOnce(t, p, t.TempDir())
	if err != nil || st != Complete {
		t.Fatalf("run: %v %v\n%s", st, err, console)
	}
	res := decodeFrames(t, console)
	if len(res) != 4 {
		t.Fatalf("%d results:\n%s", len(res), console)
	}
	for _, r := range res[:3] {
		if r.Status != resultframe.StatusOK {
			t.Fatalf("%s: %s %s", r.Case, r.Status, r.Error)
		}
		tps, el := metric(r, "tps"), metric(r, "elapsed")
		if tps <= 0 || el <= 0 || metric(r, "transactions") != 50 || r.Attrs["sqlite_version"] == "" {
			t.Errorf("%s: tps %v elapsed %v attrs %v", r.Case, tps, el, r.Attrs)
		}
		// The rate is what the measured time gives, not a constant.
		if d := tps*el - 50; d < -0.01 || d > 0.01 {
			t.Errorf("%s: %v tx/s over %v s is not 50 transactions", r.Case, tps, el)
		}
	}
}

func TestSQLiteTPSWithoutSQLiteIsSkipped(t *testing.T) {
	part := loopPart(t, "ext4", 32<<20)
	t.Setenv("PATH", t.TempDir())
	p := planFor([]runplan.Partition{*part}, runplan.Step{Recipe: "sqlite_tps", Test: "tps", Case: "insert", On: "bench",
		Params: runplan.Params{"operation": "insert", "transactions": json.Number("5"), "rows_per_transaction": json.Number("1"),
			"row_size": json.Number("10"), "journal_mode": "PERSIST", "synchronous": "FULL", "page_size": json.Number("4096"), "timeout": "1m"}})
	console, _, err := runOnce(t, p, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res := decodeFrames(t, console)
	if len(res) != 2 || res[0].Status != resultframe.StatusSkipped {
		t.Fatalf("results %+v, want one skipped and the plan's end", res)
	}
}
