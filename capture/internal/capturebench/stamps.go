package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// stampPrefix is the "[abs delta] " both tools put before every line:
// fsbench prints "[%11.6f %9.6f] ", grabserial "[%4.6f %2.6f] ".
var stampPrefix = regexp.MustCompile(`^\[ *(-?\d+\.\d+) +(-?\d+\.\d+)\] ?`)

// parseStamps turns a tool's output into the start time of every log
// line, in seconds since the first line's.
//
// Both tools reset the time base at line reset (-reset, -m), so abs alone
// is not one time scale. Before the reset, abs counts from the first
// line; the reset line's time is the previous line's plus its delta (the
// delta is measured from the previous line in both tools, whatever the
// base); after it, abs counts from the reset line. That uses at most two
// printed values per line, so the 1 µs print resolution adds at most
// 1.5 µs.
//
// Every output line must show its log line's text (grabserial drops every
// '\r', fsbench only trailing ones; neither is compared); the last may be
// cut short where the tool quit.
func parseStamps(out string, lines []logLine, reset int) ([]float64, error) {
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(rows) < len(lines) {
		return nil, fmt.Errorf("%d output lines for %d log lines", len(rows), len(lines))
	}
	abs := make([]float64, len(lines))
	delta := make([]float64, len(lines))
	for i, ln := range lines {
		m := stampPrefix.FindStringSubmatch(rows[i])
		if m == nil {
			return nil, fmt.Errorf("output line %d has no [abs delta] stamp: %.60q", i+1, rows[i])
		}
		text := strings.ReplaceAll(rows[i][len(m[0]):], "\r", "")
		last := i == len(lines)-1
		if text != ln.text && !(last && strings.HasPrefix(ln.text, text)) {
			return nil, fmt.Errorf("output line %d is %.60q, the log has %.60q", i+1, text, ln.text)
		}
		abs[i], _ = strconv.ParseFloat(m[1], 64)
		delta[i], _ = strconv.ParseFloat(m[2], 64)
	}
	t := make([]float64, len(lines))
	for i := range lines {
		switch {
		case i < reset:
			t[i] = abs[i]
		case i == reset && i > 0:
			t[i] = t[i-1] + delta[i]
		case i > reset:
			t[i] = t[reset] + abs[i]
		}
	}
	return t, nil
}
