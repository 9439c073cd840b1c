package resultframe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// sample returns a deterministic, varied result; big ones need many chunks.
func sample(rng *rand.Rand, seq uint64, big bool) Result {
	words := []string{"fio", "ext4", "f2fs", "<&>", "ünï©ødé", "\"quoted\"", "tab\there", "line\nbreak", "@@FSB1", "\x00nul", "\u2028"}
	w := func() string { return words[rng.IntN(len(words))] }
	r := Result{
		RunID:     fmt.Sprintf("run-%d", rng.IntN(3)),
		Seq:       seq,
		BootID:    "5f1c0d0e-aaaa-bbbb-cccc-0123456789ab",
		Recipe:    w(),
		Name:      w(),
		Case:      w() + "/" + w(),
		Variant:   w(),
		Iteration: rng.IntN(300),
		Status:    []Status{StatusOK, StatusFailed, StatusSkipped}[rng.IntN(3)],
		StartNS:   rng.Int64(),
		EndNS:     rng.Int64(),
	}
	if r.Status == StatusFailed {
		r.Error = "mkfs.f2fs: " + w()
	}
	nm := rng.IntN(5)
	if big {
		nm = 40 + rng.IntN(40)
	}
	for i := 0; i < nm; i++ {
		v := []float64{0, math.Copysign(0, -1), 1e-300, 123.456, -7, math.MaxFloat64, math.SmallestNonzeroFloat64, rng.NormFloat64() * 1e6}[rng.IntN(8)]
		r.Metrics = append(r.Metrics, Metric{Name: fmt.Sprintf("m%d_%s", i, w()), Value: v, Unit: []string{"", "MiB/s", "ms", "IOPS"}[rng.IntN(4)]})
	}
	if rng.IntN(2) == 0 {
		r.Attrs = map[string]string{"engine": []string{"fio", "builtin"}[rng.IntN(2)], "kernel": "6.6.0-" + w()}
	}
	return r
}

// decodeAll feeds the whole input at once and closes the stream.
func decodeAll(d *Decoder, input string) []Event {
	return append(d.Feed([]byte(input)), d.Close()...)
}

func split(evs []Event) (results []Result, problems []*Problem, text string) {
	for _, e := range evs {
		switch {
		case e.Result != nil:
			results = append(results, *e.Result)
		case e.Problem != nil:
			problems = append(problems, e.Problem)
		default:
			text += e.Text
		}
	}
	return
}

func mustEncode(t testing.TB, r Result) []string {
	t.Helper()
	lines, err := Encode(r)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return lines
}

func join(lines []string) string { return strings.Join(lines, "\n") + "\n" }

func equal(a, b Result) bool { return reflect.DeepEqual(a, b) }
