package lava

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Python is Debian's interpreter, which has lava-common and
// lava-dispatcher; another python on the PATH (a virtualenv, pyenv) has
// not.
const Python = "/usr/bin/python3"

// LAVARun is Debian's lava-dispatcher command, run with Python.
const LAVARun = "/usr/bin/lava-run"

// ErrNoLAVACommon is returned when Debian's lava-common is missing.
var ErrNoLAVACommon = errors.New("the jobs are checked with LAVA's own schema, from Debian's lava-common: install it (apt-get install lava-common)")

// schemaScript validates each job file given with lava-common's strict
// schema and prints one JSON object per file: its error and the path of
// the offending field, or no error.
const schemaScript = `
import json, sys
import yaml
from voluptuous import Invalid
from lava_common.schemas import validate
for name in sys.argv[1:]:
    out = {"file": name}
    try:
        with open(name) as f:
            validate(yaml.safe_load(f), strict=True)
    except Invalid as exc:
        out["error"] = exc.msg
        out["path"] = [str(p) for p in exc.path]
    except Exception as exc:
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
    print(json.dumps(out))
`

// SchemaError is a job that LAVA's schema refuses.
type SchemaError struct {
	File  string
	Path  []string
	Error string
}

// ValidateSchema checks the job files with the schema of Debian's
// lava-common, which a LAVA server applies to every submission, and
// returns what it refuses (nil when it takes them all).
func ValidateSchema(ctx context.Context, files ...string) ([]SchemaError, error) {
	if len(files) == 0 {
		return nil, nil
	}
	if err := exec.CommandContext(ctx, Python, "-c", "import lava_common.schemas").Run(); err != nil {
		return nil, ErrNoLAVACommon
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, Python, append([]string{"-c", schemaScript}, files...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lava-common's schema: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var bad []SchemaError
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := 0
	for dec.More() {
		var r struct {
			File, Error string
			Path        []string
		}
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("lava-common's schema: %v", err)
		}
		seen++
		if r.Error != "" {
			bad = append(bad, SchemaError{File: r.File, Path: r.Path, Error: r.Error})
		}
	}
	if seen != len(files) {
		return nil, fmt.Errorf("lava-common's schema answered for %d of %d jobs", seen, len(files))
	}
	return bad, nil
}

func (e SchemaError) String() string {
	if len(e.Path) == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Error)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, strings.Join(e.Path, "."), e.Error)
}

// ValidateDispatcher checks a job file with lava-run --validate against a
// rendered device dictionary: the dispatcher builds the job's whole
// pipeline for that device without running it. work receives lava-run's
// output directory.
func ValidateDispatcher(ctx context.Context, job, device, work string) error {
	if _, err := os.Stat(LAVARun); err != nil {
		return fmt.Errorf("lava-run --validate needs Debian's lava-dispatcher (apt-get install lava-dispatcher): %v", err)
	}
	out := filepath.Join(work, "validate")
	cmd := exec.CommandContext(ctx, Python, LAVARun, "--validate", "--job-id", "0", "--output-dir", out, "--device", device, job)
	log, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	entries, _ := ReadLog(bytes.NewReader(log))
	if msg := Failure(entries); msg != "" {
		return fmt.Errorf("lava-run --validate %s: %s", filepath.Base(job), msg)
	}
	return fmt.Errorf("lava-run --validate %s: %v: %s", filepath.Base(job), err, lastLines(string(log), 5))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
