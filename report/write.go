package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
)

// The files a report writes into its directory.
const (
	HTMLFile       = "report.html"
	MarkdownFile   = "report.md"
	CSVFile        = "summary.csv"
	JSONFile       = "summary.json"
	ComparisonFile = "comparison.csv"
)

// Write writes the report into dir: the HTML page, the Markdown summary
// with its charts in dir/charts, the CSV and JSON exports, and with a
// baseline the comparison as CSV. Each file is replaced whole; SVG files
// in dir/charts that this report did not write (charts of an earlier
// report) are removed, so that the folder matches the Markdown. It
// returns the paths written, in order.
func (r *Report) Write(dir string) ([]string, error) {
	charts := filepath.Join(dir, ChartsDir)
	if err := os.MkdirAll(charts, 0o755); err != nil {
		return nil, err
	}
	js, err := r.JSON()
	if err != nil {
		return nil, fmt.Errorf("summary.json: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{HTMLFile, []byte(r.HTML())},
		{MarkdownFile, []byte(r.Markdown())},
		{CSVFile, r.CSV()},
		{JSONFile, js},
	}
	if r.Comparison != nil {
		files = append(files, struct {
			name string
			data []byte
		}{ComparisonFile, r.ComparisonCSV()})
	}
	var written, svgs []string
	for _, ch := range r.Charts {
		name := ch.Slug + ".svg"
		svgs = append(svgs, name)
		p := filepath.Join(charts, name)
		if err := atomicfile.WriteFile(p, []byte(ch.SVG()), 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := atomicfile.WriteFile(p, f.data, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	old, err := os.ReadDir(charts)
	if err != nil {
		return written, err
	}
	for _, e := range old {
		if strings.HasSuffix(e.Name(), ".svg") && !slices.Contains(svgs, e.Name()) {
			if err := os.Remove(filepath.Join(charts, e.Name())); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}
