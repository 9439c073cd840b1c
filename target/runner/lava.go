package runner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// lavaSignal is res as the line LAVA's lava-test-case prints, which LAVA
// reads from the console: the test case id is recipe.test.case, with the
// iteration when there are several, and the measurement is the result's
// first metric.
func lavaSignal(res resultframe.Result) string {
	id := lavaName(res.Recipe + "." + res.Name + "." + res.Case)
	if res.Iteration > 1 {
		id += "." + strconv.Itoa(res.Iteration)
	}
	result := map[resultframe.Status]string{resultframe.StatusOK: "pass", resultframe.StatusFailed: "fail",
		resultframe.StatusSkipped: "skip"}[res.Status]
	line := fmt.Sprintf("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s", id, result)
	if len(res.Metrics) > 0 && res.Status == resultframe.StatusOK {
		m := res.Metrics[0]
		line += " MEASUREMENT=" + strconv.FormatFloat(m.Value, 'g', -1, 64)
		if m.Unit != "" {
			line += " UNITS=" + lavaName(m.Unit)
		}
	}
	return line + ">"
}

// lavaName keeps the characters LAVA accepts in ids and units.
func lavaName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '/':
			return r
		}
		return '_'
	}, s)
}
