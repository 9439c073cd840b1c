package report

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is a set of results files in testdata and the report the
// golden files hold for it.
type fixture struct {
	name     string
	inputs   string // glob
	baseline string // glob, optional
	// only, when set, limits the golden comparison to these files (the
	// exports of the larger fixtures are big; their determinism is
	// checked all the same).
	only []string
}

var fixtures = []fixture{
	// A real run: examples/quickstart.fsb.hcl under QEMU, five variants.
	{name: "quickstart", inputs: "testdata/quickstart/*.jsonl", only: []string{MarkdownFile, ChartsDir}},
	// The quickstart again, every test settling in three to five runs.
	{name: "settled", inputs: "testdata/settled/*.jsonl", only: []string{MarkdownFile}},
	// The quick quickstart: fio writes, an hour of endurance and crash
	// states, so that the verdict has lifetime and robustness figures.
	{name: "first", inputs: "testdata/first/*.jsonl", only: []string{MarkdownFile}},
	// Every recipe, made-up values in the shapes the runner stores.
	{name: "synthetic", inputs: "testdata/synthetic/*.jsonl", only: []string{HTMLFile, MarkdownFile, ChartsDir}},
	// One variant measured on two kernels.
	{name: "contexts", inputs: "testdata/contexts/*.jsonl"},
	// A new run against a baseline.
	{name: "compare", inputs: "testdata/compare/new-*.jsonl", baseline: "testdata/compare/base-*.jsonl"},
	// Write accounting, endurance traces and flash_info in QEMU and on a
	// board (made by TestFlashFixture).
	{name: "flash", inputs: "testdata/flash/*.jsonl"},
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	if pattern == "" {
		return nil
	}
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no files match %s (%v)", pattern, err)
	}
	return paths
}

func (fx fixture) build(t *testing.T) *Report {
	t.Helper()
	ins, err := Load(glob(t, fx.inputs))
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	if fx.baseline != "" {
		if opt.Baseline, err = Load(glob(t, fx.baseline)); err != nil {
			t.Fatal(err)
		}
	}
	return Build(ins, opt)
}

// readTree returns the files under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func (fx fixture) selected(rel string) bool {
	if len(fx.only) == 0 {
		return true
	}
	for _, o := range fx.only {
		if rel == o || strings.HasPrefix(rel, o+"/") {
			return true
		}
	}
	return false
}

// TestGolden writes each fixture's report and compares it with the golden
// files in testdata/golden/<fixture>. Files the report no longer writes
// are errors too (and are removed by -update).
func TestGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := fx.build(t).Write(dir); err != nil {
				t.Fatal(err)
			}
			got := readTree(t, dir)
			goldenDir := filepath.Join("testdata", "golden", fx.name)
			var names []string
			for rel := range got {
				if fx.selected(rel) {
					names = append(names, rel)
				}
			}
			slices.Sort(names)
			for _, rel := range names {
				p := filepath.Join(goldenDir, filepath.FromSlash(rel))
				if *update {
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				golden.Check(t, p, got[rel], *update)
			}
			if _, err := os.Stat(goldenDir); err != nil {
				return
			}
			for rel := range readTree(t, goldenDir) {
				if !slices.Contains(names, rel) {
					if *update {
						os.Remove(filepath.Join(goldenDir, filepath.FromSlash(rel)))
						continue
					}
					t.Errorf("golden file %s: the report no longer writes it (run go test -update)", rel)
				}
			}
		})
	}
}

// TestDeterministic builds every report twice and compares every byte,
// with a negative control: one input fewer changes the output.
func TestDeterministic(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			if _, err := fx.build(t).Write(a); err != nil {
				t.Fatal(err)
			}
			if _, err := fx.build(t).Write(b); err != nil {
				t.Fatal(err)
			}
			ta, tb := readTree(t, a), readTree(t, b)
			if len(ta) != len(tb) {
				t.Fatalf("%d files, then %d", len(ta), len(tb))
			}
			for rel, x := range ta {
				if !bytes.Equal(x, tb[rel]) {
					t.Errorf("%s differs between two builds of the same inputs", rel)
				}
			}
			paths := glob(t, fx.inputs)
			if len(paths) < 2 {
				return
			}
			ins, err := Load(paths[1:])
			if err != nil {
				t.Fatal(err)
			}
			if fewer := Build(ins, Options{}); bytes.Equal(fewer.CSV(), fx.build(t).CSV()) {
				t.Error("dropping an input did not change the table")
			}
		})
	}
}
