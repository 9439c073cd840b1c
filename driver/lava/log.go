package lava

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/driver/console"
)

// Entry is one line of a LAVA job's log: lava-run prints one per line on
// its standard error, and a server serves the same lines, each as an
// item of a YAML list, at /api/v0.2/jobs/ID/logs/.
type Entry struct {
	Time  time.Time
	Level string // target (the device's console), info, debug, error, results, ...
	// Msg is the text of most levels; Fields is the mapping of "results".
	Msg    string
	Fields map[string]any
}

// ReadLog parses a job's log, in either form. A line that is not a log
// entry is an error: a log cut in the middle of a line, or another file.
func ReadLog(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		line = bytes.TrimPrefix(line, []byte("- "))
		if len(line) == 0 {
			continue
		}
		var raw struct {
			DT  string    `yaml:"dt"`
			Lvl string    `yaml:"lvl"`
			Msg yaml.Node `yaml:"msg"`
		}
		if line[0] != '{' || yaml.Unmarshal(line, &raw) != nil || raw.Lvl == "" {
			return out, fmt.Errorf("line %d is not a LAVA log entry: %.80q", n, line)
		}
		e := Entry{Level: raw.Lvl}
		if t, err := time.Parse("2006-01-02T15:04:05.999999", raw.DT); err == nil {
			e.Time = t
		} else {
			return out, fmt.Errorf("line %d: time %q: %v", n, raw.DT, err)
		}
		switch raw.Msg.Kind {
		case yaml.ScalarNode:
			e.Msg = raw.Msg.Value
		case yaml.MappingNode:
			if err := raw.Msg.Decode(&e.Fields); err != nil {
				return out, fmt.Errorf("line %d: %v", n, err)
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// Failure is why a job failed, as LAVA said it: the error message of its
// closing "job" result, or of its last error; "" when it passed.
func Failure(entries []Entry) string {
	lastErr := ""
	for _, e := range entries {
		if e.Level == "error" && e.Msg != "" {
			lastErr = e.Msg
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Level != "results" || e.Fields["definition"] != "lava" || e.Fields["case"] != "job" {
			continue
		}
		if e.Fields["result"] == "pass" {
			return ""
		}
		if msg, _ := e.Fields["error_msg"].(string); msg != "" {
			return strings.TrimSpace(msg)
		}
		break
	}
	return lastErr
}

// Console is the device's console in a job's log, as lines with the time
// the dispatcher logged each. LAVA logs a line when its newline arrives,
// drops carriage returns, escape characters and empty lines, and writes
// a double quote as \"; result frames hold none of these, so they arrive
// intact or, if the console damaged them, are reported as damaged.
func Console(entries []Entry) []capture.Line {
	var lines []capture.Line
	for _, e := range entries {
		if e.Level != "target" {
			continue
		}
		text := strings.ReplaceAll(e.Msg, `\"`, `"`) + "\n"
		lines = append(lines, capture.Line{Start: e.Time, End: e.Time, Bytes: []byte(text)})
	}
	return lines
}

// lineSlice replays recorded lines.
type lineSlice []capture.Line

func (s *lineSlice) Next(ctx context.Context) (capture.Line, error) {
	if err := ctx.Err(); err != nil {
		return capture.Line{}, err
	}
	if len(*s) == 0 {
		return capture.Line{}, io.EOF
	}
	l := (*s)[0]
	*s = (*s)[1:]
	return l, nil
}

// Run is a LAVA job as fsbench reads it back.
type Run struct {
	// JobID and Device name the job and the device it ran on, as the
	// lab knows them; DeviceType is the device's type.
	JobID, Device, DeviceType string
	// Entries are the job's log.
	Entries []Entry
}

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// Store receives each result once; nil keeps them in the Summary only.
	Store *console.Store
	// Log receives the console, grabserial style, with the dispatcher's
	// times; nil discards it.
	Log io.Writer
	// Attrs are added to every result besides the job's own.
	Attrs map[string]string
}

// Convert reads the runner's results out of a job's console, as a run on
// fsbench's own target reads them: every intact frame is a result, each
// once, with the job and its device in its attributes (lava_job_id,
// lava_device, lava_device_type, target "lava"); a damaged frame is a
// problem of the Summary. Its error says what is missing: a job whose
// runner never reported its plan complete, LAVA's reason when the job
// failed, the sequence numbers of the results that never arrived intact.
// The host's own boot timing (root mount to prompt) is not taken from a
// lab's log, whose times are those of whole lines: the target's own
// boot figures are in the results.
func Convert(ctx context.Context, run Run, opt ConvertOptions) (*console.Summary, error) {
	attrs := map[string]string{"target": "lava", "lava_job_id": run.JobID, "lava_device": run.Device, "lava_device_type": run.DeviceType}
	for k, v := range opt.Attrs {
		attrs[k] = v
	}
	for k, v := range attrs {
		if v == "" {
			delete(attrs, k)
		}
	}
	lines := lineSlice(Console(run.Entries))
	sum, err := console.Replay(ctx, &lines, console.Options{Log: opt.Log, Store: opt.Store, Attrs: attrs})
	if err != nil {
		return sum, err
	}
	if !sum.Complete {
		why := "the runner never reported the plan complete"
		if f := Failure(run.Entries); f != "" {
			why += "; LAVA: " + f
		}
		return sum, fmt.Errorf("job %s: %s (%d results)", cmpJob(run.JobID), why, len(sum.Results))
	}
	if miss := sum.Missing(); len(miss) > 0 {
		return sum, fmt.Errorf("job %s: results %v never arrived intact", cmpJob(run.JobID), miss)
	}
	return sum, nil
}

func cmpJob(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}
