package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Input is one results file as given on the command line.
type Input struct {
	Path    string
	Results []resultframe.Result
	// Duplicates counts results dropped because an earlier line (of this
	// file or an earlier one) had the same run and sequence number: a
	// file given twice, or a result delivered again after a power cut.
	Duplicates int
}

// ErrNoResults is returned by Load when none of the files holds a result.
var ErrNoResults = errors.New("no results")

// Load reads results files in the order given. A directory stands for
// every *.jsonl file under it, in lexical order (the output directory of
// fsbench run holds one <variant>/run/results.jsonl per variant). A line
// that is not a result is an error naming the file and line; a result
// already seen (same run and sequence number) is counted and dropped, so
// that giving the same file twice does not double its weight.
func Load(paths []string) ([]Input, error) {
	files, err := expandDirs(paths)
	if err != nil {
		return nil, err
	}
	seen := map[runSeq]bool{}
	var ins []Input
	total := 0
	for _, p := range files {
		in, err := loadFile(p, seen)
		if err != nil {
			return nil, err
		}
		total += len(in.Results)
		ins = append(ins, in)
	}
	if total == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoResults, joinPaths(paths))
	}
	return ins, nil
}

// expandDirs replaces each directory of paths by the *.jsonl files under
// it.
func expandDirs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			out = append(out, p) // loadFile reports the error
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
				out = append(out, q)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no results files (*.jsonl) in this directory", p)
		}
	}
	return out, nil
}

type runSeq struct {
	run string
	seq uint64
}

func loadFile(path string, seen map[runSeq]bool) (Input, error) {
	in := Input{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return in, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, resultframe.MaxPayload+1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		r, err := parseResult(line)
		if err != nil {
			return in, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		k := runSeq{r.RunID, r.Seq}
		if seen[k] {
			in.Duplicates++
			continue
		}
		seen[k] = true
		in.Results = append(in.Results, r)
	}
	if err := sc.Err(); err != nil {
		return in, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// parseResult decodes one line strictly: unknown fields, a newer schema
// or an unknown status are errors, because a report that silently drops
// what it does not understand would misreport.
func parseResult(line []byte) (resultframe.Result, error) {
	var head struct {
		V int `json:"v"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return resultframe.Result{}, fmt.Errorf("not a result: %w", err)
	}
	switch {
	case head.V < 1:
		return resultframe.Result{}, fmt.Errorf("not a result: missing or invalid schema version %d", head.V)
	case head.V > resultframe.SchemaVersion:
		return resultframe.Result{}, fmt.Errorf("result schema version %d is newer than this fsbench understands (%d): upgrade fsbench",
			head.V, resultframe.SchemaVersion)
	}
	var r resultframe.Result
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a result: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return r, errors.New("not a result: data after the JSON object")
	}
	switch r.Status {
	case resultframe.StatusOK, resultframe.StatusFailed, resultframe.StatusSkipped:
	default:
		return r, fmt.Errorf("unknown status %q", r.Status)
	}
	if r.RunID == "" || r.Seq == 0 {
		return r, errors.New("not a result: no run id or sequence number")
	}
	return r, nil
}

func joinPaths(ps []string) string {
	var b bytes.Buffer
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	return b.String()
}
