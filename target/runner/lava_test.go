package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestLAVASignal(t *testing.T) {
	for _, c := range []struct {
		r    resultframe.Result
		want string
	}{
		{resultframe.Result{Recipe: "fio", Name: "bandwidth", Case: "randread-4KiB-direct", Iteration: 1, Status: resultframe.StatusOK,
			Metrics: []resultframe.Metric{{Name: "read_bytes", Value: 67108864, Unit: "B"}}},
			"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=fio.bandwidth.randread-4KiB-direct RESULT=pass MEASUREMENT=6.7108864e+07 UNITS=B>"},
		{resultframe.Result{Recipe: "boot_time", Name: "root fs", Case: "single", Iteration: 3, Status: resultframe.StatusOK,
			Metrics: []resultframe.Metric{{Name: "target_boot", Value: 0.49, Unit: "s"}}},
			"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=boot_time.root_fs.single.3 RESULT=pass MEASUREMENT=0.49 UNITS=s>"},
		{resultframe.Result{Recipe: "sqlite_tps", Name: "t", Case: "insert", Status: resultframe.StatusSkipped, Error: "no sqlite3"},
			"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=sqlite_tps.t.insert RESULT=skip>"},
	} {
		if got := lavaSignal(c.r); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestRunPrintsLAVASignals(t *testing.T) {
	work := t.TempDir()
	p := planFor(nil, runplan.Step{Recipe: "churn", Test: "plain", Case: "a",
		Params: runplan.Params{"iterations": json.Number("2"), "dir": work, "timeout": "1m"}})
	var console bytes.Buffer
	if _, err := Run(context.Background(), Options{Plan: p, StateDir: t.TempDir(), Console: &console, LAVA: true,
		Reboot: func(string) error { return nil }}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=churn.plain.a RESULT=pass MEASUREMENT=1>",
		"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=churn.plain.a.2 RESULT=pass MEASUREMENT=2>",
		"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=fsbench.plan.complete RESULT=pass MEASUREMENT=3>",
	} {
		if !strings.Contains(console.String(), want+"\n") {
			t.Errorf("console lacks %s:\n%s", want, console.String())
		}
	}
	if n := len(decodeFrames(t, console.Bytes())); n != 3 {
		t.Errorf("%d frames next to the signals, want 3", n)
	}
}

func TestParseFlags(t *testing.T) {
	flags := map[string]*string{"plan": new(string), "state": new(string), "finally": new(string)}
	help, err := parseFlags([]string{"-plan", "/p.json", "--state=/s", "-finally=poweroff"}, flags)
	if help || err != nil || *flags["plan"] != "/p.json" || *flags["state"] != "/s" || *flags["finally"] != "poweroff" {
		t.Errorf("parse: %v %v %q %q %q", help, err, *flags["plan"], *flags["state"], *flags["finally"])
	}
	for _, bad := range [][]string{{"-nope", "x"}, {"-plan"}, {"stray"}, {"--"}} {
		if _, err := parseFlags(bad, flags); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if help, err := parseFlags([]string{"-h"}, flags); !help || err != nil {
		t.Errorf("-h: %v %v", help, err)
	}
	var out, errb strings.Builder
	if code := Main([]string{"run", "-bogus"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown option -bogus") ||
		!strings.Contains(errb.String(), "usage: fsbench-runner run") {
		t.Errorf("run -bogus: exit %d, %q", code, errb.String())
	}
}
