package lava

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// logLine is one entry as lava-run writes it.
func logLine(lvl string, msg any) string {
	b, _ := json.Marshal(map[string]any{"dt": "2026-12-01T10:00:00.123456", "lvl": lvl, "msg": msg})
	return string(b) + "\n"
}

// jobLog is the log of a job whose console carried results seq 1..n and
// the plan's closing result; damage, when set, changes the console text
// of the result with that seq.
func jobLog(t *testing.T, n int, complete bool, damage func(seq uint64, line string) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(logLine("info", "start: 0 validate"))
	b.WriteString(logLine("target", "[    3.579077] fsbench-init: Mounted root (ext4 filesystem) on /dev/vda1"))
	// LAVA writes a double quote of the console as \".
	b.WriteString(logLine("target", `fsbench login: fsbench-runner: run 0123456789abcdef, boot 1, \"ext4\": step 1 of 1`))
	var rs []resultframe.Result
	for i := 1; i <= n; i++ {
		rs = append(rs, resultframe.Result{Recipe: "fio", Name: "seq", Case: fmt.Sprintf("c%d", i), Iteration: 1, Status: resultframe.StatusOK,
			Metrics: []resultframe.Metric{{Name: "write_bw", Value: float64(i), Unit: "MiB/s"}}})
	}
	if complete {
		rs = append(rs, resultframe.PlanComplete(uint64(n+1), 1))
	}
	for i, r := range rs {
		r.RunID, r.Seq, r.Variant = "0123456789abcdef", uint64(i+1), "ext4"
		lines, err := resultframe.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if damage != nil {
				l = damage(r.Seq, l)
			}
			b.WriteString(logLine("target", l))
		}
	}
	if complete {
		b.WriteString(logLine("target", "fsbench-runner: plan complete: 3 results in 1 boots"))
		b.WriteString(logLine("results", map[string]any{"definition": "lava", "case": "job", "result": "pass"}))
	} else {
		b.WriteString(logLine("error", "LAVATimeoutError: lava-test-monitor timed out after 600 seconds"))
		b.WriteString(logLine("results", map[string]any{"definition": "lava", "case": "job", "result": "fail",
			"error_msg": "lava-test-monitor timed out after 600 seconds", "error_type": "Test"}))
	}
	return b.String()
}

func convert(t *testing.T, log string) ([]resultframe.Result, []resultframe.Problem, error) {
	t.Helper()
	entries, err := ReadLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	sum, err := Convert(context.Background(), Run{JobID: "42", Device: "bbb-03", DeviceType: "beaglebone-black", Entries: entries},
		ConvertOptions{Log: &console})
	if !strings.Contains(console.String(), `fsbench-runner: run 0123456789abcdef, boot 1, "ext4"`) {
		t.Errorf("the console log misses the runner's line:\n%s", console.String())
	}
	return sum.Results, sum.Problems, err
}

func TestConvertCompleteJob(t *testing.T) {
	rs, probs, err := convert(t, jobLog(t, 2, true, nil))
	if err != nil || len(probs) > 0 {
		t.Fatalf("Convert: %v, problems %v", err, probs)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results, want 2 and the plan's closing one", len(rs))
	}
	r := rs[1]
	if r.Case != "c2" || r.Metrics[0].Value != 2 || r.Attrs["lava_job_id"] != "42" || r.Attrs["lava_device"] != "bbb-03" ||
		r.Attrs["lava_device_type"] != "beaglebone-black" || r.Attrs["target"] != "lava" {
		t.Errorf("result 2: %+v", r)
	}
}

// A frame the console damaged is a problem and its result is missing,
// never a wrong number.
func TestConvertDamagedFrame(t *testing.T) {
	flip := func(seq uint64, line string) string {
		if seq != 2 {
			return line
		}
		i := strings.LastIndex(line, " ") - 3
		c := byte('A')
		if line[i] == 'A' {
			c = 'B'
		}
		return line[:i] + string(c) + line[i+1:]
	}
	rs, probs, err := convert(t, jobLog(t, 2, true, flip))
	if err == nil || !strings.Contains(err.Error(), "never arrived intact") || !strings.Contains(err.Error(), "[2]") {
		t.Errorf("Convert: %v, want result 2 reported missing", err)
	}
	if len(probs) == 0 {
		t.Error("the damaged frame is not reported")
	}
	for _, r := range rs {
		if r.Seq == 2 {
			t.Errorf("the damaged result was accepted: %+v", r)
		}
	}
}

// A job that ended before the plan did says so, with LAVA's reason, and
// keeps what did arrive.
func TestConvertIncompleteJob(t *testing.T) {
	rs, _, err := convert(t, jobLog(t, 2, false, nil))
	if err == nil || !strings.Contains(err.Error(), "never reported the plan complete") ||
		!strings.Contains(err.Error(), "lava-test-monitor timed out after 600 seconds") {
		t.Errorf("Convert: %v, want the plan incomplete with LAVA's reason", err)
	}
	if len(rs) != 2 {
		t.Errorf("%d results kept, want the 2 that arrived", len(rs))
	}
}

// A server's log (a YAML list) reads like lava-run's; a cut or foreign
// line is an error, not a shorter log.
func TestReadLog(t *testing.T) {
	log := jobLog(t, 1, true, nil)
	var server strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if l != "" {
			server.WriteString("- " + l)
		}
	}
	a, err := ReadLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadLog(strings.NewReader(server.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) || len(a) < 5 || a[2].Msg != b[2].Msg || a[2].Level != "target" {
		t.Errorf("the two forms differ: %d and %d entries", len(a), len(b))
	}
	if !strings.Contains(a[2].Msg, `\"ext4\"`) {
		t.Errorf("the entry's text is not LAVA's: %q", a[2].Msg)
	}
	cut := log[:len(log)-30]
	if _, err := ReadLog(strings.NewReader(cut)); err == nil {
		t.Error("a log cut in the middle of a line was read")
	}
	if _, err := ReadLog(strings.NewReader("hello\n")); err == nil {
		t.Error("a file that is no log was read")
	}
	if f := Failure(b); f != "" {
		t.Errorf("Failure of a passed job: %q", f)
	}
}
