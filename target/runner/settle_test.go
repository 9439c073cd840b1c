package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// "series" gives the values of its parameter values, one per iteration;
// a value of -1 fails the iteration. With reboot it reboots after each.
func init() {
	register("series", step.Recipe{Schema: 1, Iterate: func(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
		v := e.P.Floats("values")
		if e.P.Err != nil {
			return nil, e.P.Err
		}
		x := v[(iter-1)%len(v)]
		if x == -1 {
			return nil, errors.New("failing on purpose")
		}
		out := &step.Outcome{RebootAfter: e.Step.Test == "rebooting"}
		out.Metric("x", x, "s")
		out.Metric("other", 1e6*float64(iter), "")
		return out, nil
	}})
}

func seriesStep(test string, min, max int, values ...float64) runplan.Step {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return runplan.Step{Recipe: "series", Test: test, Case: "c", Iterations: max,
		Settle: &runplan.Settle{CI: 0.05, Min: min, Metrics: []string{"x"}},
		Params: runplan.Params{"values": vs, "timeout": "1m"}}
}

// runToEnd runs p to completion, rebooting (a new boot id) whenever the
// runner asks, and returns the results in their order.
func runToEnd(t *testing.T, p *runplan.Plan) []resultframe.Result {
	t.Helper()
	state := t.TempDir()
	var console bytes.Buffer
	defer func() {
		if testing.Verbose() {
			t.Log(console.String())
		}
	}()
	for boot := 1; ; boot++ {
		if boot > 100 {
			t.Fatal("the plan did not complete in 100 boots")
		}
		st, err := Run(context.Background(), Options{Plan: p, StateDir: state, BootID: fmt.Sprint("boot-", boot), Console: &console,
			Reboot: func(string) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		if st == Complete {
			break
		}
	}
	return readJournal(t, state)
}

func TestSettleStopsTheStep(t *testing.T) {
	p := planFor(nil,
		// constant: settled at min
		seriesStep("constant", 3, 10, 7, 7, 7, 7, 7, 7),
		// two wild values, then steady: settled once the interval of
		// all values is narrow enough
		seriesStep("wild", 3, 30, 5, 9, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7),
		// never settles: stopped by max
		seriesStep("noisy", 3, 5, 1, 10, 1, 10, 1, 10),
		// failures count toward max, not toward min
		seriesStep("failing", 3, 4, 7, -1, -1, 7),
		// the same as wild, across reboots after every iteration
		seriesStep("rebooting", 3, 30, 5, 9, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7),
	)
	res := runToEnd(t, p)
	byTest := map[string][]resultframe.Result{}
	for _, r := range res {
		byTest[r.Name] = append(byTest[r.Name], r)
	}
	check := func(test string, n int, last string) {
		t.Helper()
		got := byTest[test]
		if len(got) != n {
			t.Fatalf("%s: %d results, want %d", test, len(got), n)
		}
		for i, r := range got {
			want := "continue"
			if i == n-1 {
				want = last
			}
			if r.Attrs["settle"] != want {
				t.Errorf("%s iteration %d: settle %q, want %q", test, i+1, r.Attrs["settle"], want)
			}
		}
	}
	check("constant", 3, "settled")
	check("noisy", 5, "max")
	check("failing", 4, "max")
	// 5, 9, then 7s: the raw interval is within 5% at 18 values
	// (t(17) = 2.110: 4.87%), the log one only at 19 (t(18) = 2.101, sd
	// of the logs 0.0989: expm1(2.101 * 0.0989 / sqrt(19)) = 4.88%).
	wild := byTest["wild"]
	if n := len(wild); n != 19 {
		t.Fatalf("wild: %d results, want 19", n)
	}
	check("wild", len(wild), "settled")
	check("rebooting", len(wild), "settled")
	if got := wild[len(wild)-1].Attrs["settle_ci"]; got != "4.88%" {
		t.Errorf("wild: settled at settle_ci %q, want 4.88%%", got)
	}
	if _, ok := byTest["constant"][0].Attrs["settle_ci"]; ok {
		t.Error("a width after one value")
	}
}

// A settle rule is part of the plan's contract: a bad one is refused.
func TestSettleRuleChecked(t *testing.T) {
	for _, st := range []runplan.Settle{{CI: 0, Min: 3, Metrics: []string{"x"}}, {CI: 0.05, Min: 9, Metrics: []string{"x"}},
		{CI: 0.05, Min: 3}, {CI: 1.5, Min: 3, Metrics: []string{"x"}}} {
		p := planFor(nil, runplan.Step{Recipe: "series", Test: "t", Case: "c", Iterations: 5, Settle: &st})
		b, _ := json.Marshal(p)
		if _, err := runplan.Decode(bytes.NewReader(b)); err == nil {
			t.Errorf("settle %+v accepted", st)
		}
	}
}

// readJournal returns the results of the journal in state.
func readJournal(t *testing.T, state string) []resultframe.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []resultframe.Result
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte{'\n'}) {
		var r resultframe.Result
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// A step the plan knows cannot apply is recorded so, once, and not run.
func TestNotApplicableStepIsNotRun(t *testing.T) {
	p := planFor(nil, runplan.Step{Recipe: "series", Test: "na", Case: "c", Iterations: 3,
		NotApplicable: "nilfs2 has no offline checker for fsck_time to run",
		Params:        runplan.Params{"values": []any{-1.0}, "timeout": "1m"}})
	res := runToEnd(t, p)
	if len(res) != 2 {
		t.Fatalf("%d results, want the step's one and the plan's end", len(res))
	}
	r := res[0]
	if r.Status != resultframe.StatusSkipped || r.Attrs["not_applicable"] == "" || r.Error != "not applicable: nilfs2 has no offline checker for fsck_time to run" {
		t.Errorf("result %s %q %v, want skipped as not applicable", r.Status, r.Error, r.Attrs)
	}
}
