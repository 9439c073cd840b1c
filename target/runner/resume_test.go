package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// The resume test runs the runner as a child process (this test binary,
// re-executed) and kills it at random points; "churn" is a recipe of the
// test binary that does a little synced file work per iteration, and asks
// for a reboot after some iterations, which the child simulates by exiting.

const childEnv = "FSBENCH_RUNNER_TEST_CHILD"

// crashAfterFirst makes the churn recipe panic in its second iteration.
var crashAfterFirst bool

func init() {
	register("churn", step.Recipe{Schema: 1, Iterate: churn})
}

func churn(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	dir := e.P.String("dir")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d", e.Step.Test, iter)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{byte(iter)}, 4096)); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if crashAfterFirst && iter == 2 {
		panic("churn: crashing on purpose")
	}
	out := &step.Outcome{RebootAfter: e.Step.Test == "rebooting"}
	out.Metric("iter", float64(iter), "")
	return out, nil
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		os.Exit(m.Run())
	}
	if flag := os.Getenv("CRASH_ONCE"); flag != "" {
		if _, err := os.Stat(flag); err != nil {
			os.WriteFile(flag, nil, 0o644)
			crashAfterFirst = true
		}
	}
	p, err := runplan.Load(os.Getenv("PLAN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := Run(context.Background(), Options{
		Plan: p, StateDir: os.Getenv("STATE"), Console: os.Stdout, BootID: os.Getenv("BOOT"),
		Reboot: func(string) error { os.Exit(42); return nil },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if st != Complete {
		os.Exit(3)
	}
	os.Exit(0)
}

func TestResumeAfterKillsLosesAndRepeatsNothing(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	params := func(n int) runplan.Params {
		return runplan.Params{"iterations": json.Number(strconv.Itoa(n)), "dir": work, "timeout": "1m"}
	}
	p := planFor(nil,
		runplan.Step{Recipe: "churn", Test: "plain", Case: "a", Params: params(200)},
		runplan.Step{Recipe: "churn", Test: "rebooting", Case: "b", Params: params(20)},
		runplan.Step{Recipe: "churn", Test: "plain", Case: "c", Params: params(200)},
	)
	planPath := filepath.Join(dir, "plan.json")
	var b bytes.Buffer
	if err := p.Encode(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(planPath, b.Bytes(), 0o644)
	state := filepath.Join(dir, "state")

	rng := rand.New(rand.NewPCG(7, 11))
	var console bytes.Buffer
	kills, boots, complete := 0, 0, false
	for start := 0; start < 2000 && !complete; start++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		boots++
		cmd.Env = append(os.Environ(), childEnv+"=1", "PLAN="+planPath, "STATE="+state, "BOOT=boot-"+strconv.Itoa(boots))
		cmd.Stdout = &console
		cmd.Stderr = &console
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		if kills < 100 {
			select {
			case err = <-done:
			case <-time.After(time.Duration(rng.IntN(20_000)) * time.Microsecond):
				cmd.Process.Signal(syscall.SIGKILL)
				err = <-done
				kills++
			}
		} else {
			err = <-done
		}
		switch code := cmd.ProcessState.ExitCode(); {
		case err == nil:
			complete = true
		case code == 42 || code == -1: // simulated reboot, or killed
		default:
			t.Fatalf("runner failed (%v):\n%s", err, console.String())
		}
	}
	if !complete {
		t.Fatalf("the plan did not complete after %d starts", boots)
	}
	if kills < 100 {
		t.Fatalf("only %d kills", kills)
	}

	// Console: every result at least once. A kill in the middle of a
	// frame leaves it truncated, and the next start delivers it again, so
	// truncated and duplicate frames are expected; nothing else is.
	d := resultframe.NewDecoder()
	got := map[uint64]resultframe.Result{}
	for _, l := range bytes.Split(console.Bytes(), []byte{'\n'}) {
		for _, ev := range d.FeedLine(string(l)) {
			if ev.Problem != nil && ev.Problem.Code != resultframe.CodeDuplicate && ev.Problem.Code != resultframe.CodeTruncated {
				t.Errorf("console: %v", ev.Problem)
			}
			if ev.Result != nil {
				got[ev.Result.Seq] = *ev.Result
			}
		}
	}
	want := 200 + 20 + 200 + 1
	checkOnce(t, "console", got, want)

	// Journal: each result exactly once, in order.
	jb, err := os.ReadFile(filepath.Join(state, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(jb, []byte{'\n'}), []byte{'\n'})
	if len(lines) != want {
		t.Fatalf("journal holds %d lines, want %d", len(lines), want)
	}
	js := map[uint64]resultframe.Result{}
	for i, l := range lines {
		var r resultframe.Result
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("journal line %d: %v", i+1, err)
		}
		if r.Seq != uint64(i+1) {
			t.Fatalf("journal line %d has seq %d", i+1, r.Seq)
		}
		js[r.Seq] = r
	}
	checkOnce(t, "journal", js, want)
	t.Logf("%d starts, %d kills", boots, kills)
}

// checkOnce checks that results hold each (test, case, iteration) once, all
// ok, and the plan's closing result last.
func checkOnce(t *testing.T, where string, got map[uint64]resultframe.Result, want int) {
	t.Helper()
	if len(got) != want {
		t.Errorf("%s: %d distinct results, want %d", where, len(got), want)
	}
	seen := map[string]bool{}
	for seq := uint64(1); seq <= uint64(want); seq++ {
		r, ok := got[seq]
		if !ok {
			t.Errorf("%s: seq %d missing", where, seq)
			continue
		}
		key := fmt.Sprintf("%s/%s/%d", r.Name, r.Case, r.Iteration)
		if seen[key] {
			t.Errorf("%s: %s reported twice", where, key)
		}
		seen[key] = true
		// An iteration killed MaxAttempts times is recorded as failed,
		// which is a result too; anything else must have worked.
		if r.Status != resultframe.StatusOK && !strings.HasPrefix(r.Error, "interrupted") {
			t.Errorf("%s: %s: %s %s", where, key, r.Status, r.Error)
		}
	}
	if last := got[uint64(want)]; last.Recipe != "fsbench" || last.Case != "complete" {
		t.Errorf("%s: last result is %s/%s, want the plan's end", where, last.Recipe, last.Case)
	}
}

func TestSupervisorRestartsACrashedRunner(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	p := planFor(nil, runplan.Step{Recipe: "churn", Test: "plain", Case: "a",
		Params: runplan.Params{"iterations": json.Number("3"), "dir": work, "timeout": "1m"}})
	planPath := filepath.Join(dir, "plan.json")
	var b bytes.Buffer
	p.Encode(&b)
	os.WriteFile(planPath, b.Bytes(), 0o644)
	env := append(os.Environ(), childEnv+"=1", "PLAN="+planPath, "STATE="+filepath.Join(dir, "state"),
		"BOOT=one", "CRASH_ONCE="+filepath.Join(dir, "crashed"))
	var out, errs bytes.Buffer
	code := supervise(os.Args[0], []string{"-test.run=^$"}, env, &out, &errs)
	if code != 0 {
		t.Fatalf("supervisor exit %d\n%s\n%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "the runner crashed") || !strings.Contains(errs.String(), "crashing on purpose") {
		t.Errorf("no crash seen:\n%s\n%s", out.String(), errs.String())
	}
	got := map[uint64]resultframe.Result{}
	for _, r := range decodeFrames(t, out.Bytes()) {
		got[r.Seq] = r
	}
	checkOnce(t, "console", got, 4)
}
