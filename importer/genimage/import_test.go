package genimage

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// configs lists the configurations under testdata: Buildroot's and the
// features' own.
func configs(t testing.TB) []string {
	t.Helper()
	var out []string
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "genimage") || strings.HasSuffix(p, ".cfg") && !strings.Contains(p, "/parts/") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) < 137 {
		t.Fatalf("only %d configurations under testdata", len(out))
	}
	return out
}

// goldenPath names a configuration's golden spec.
func goldenPath(cfg string) string {
	rel := strings.TrimPrefix(cfg, "testdata/")
	return filepath.Join("testdata", "golden", strings.ReplaceAll(rel, "/", "_")+".fsb.hcl")
}

// Every configuration imports into the spec its golden file holds; a spec
// without refusals validates, its paths pending on var.binaries.
func TestImportGolden(t *testing.T) {
	for _, cfg := range configs(t) {
		t.Run(cfg, func(t *testing.T) {
			s, err := Import(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := importer.Write(s)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, goldenPath(cfg), out, *update)
			if s.Refused() {
				return
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "imported.fsb.hcl")
			os.WriteFile(p, out, 0o644)
			opts := spec.Options{Planning: true}
			for _, v := range s.Variables {
				if v.Name != "binaries" && v.Name != "rootpath" && v.Default == nil {
					opts.Vars = append(opts.Vars, v.Name+"=0d2ec0c2-5e34-4a6b-8c17-9ab6e35d2c11")
				}
			}
			if _, _, diags := plan.Load(p, opts); diags.HasErrors() {
				t.Errorf("the imported spec does not validate:\n%s\n%s", diags.Error(), out)
			}
		})
	}
}

// An imported name or value never adds a line, a block or an
// interpolation of its own to the spec.
func TestImportQuotesEverything(t *testing.T) {
	s, err := Import("testdata/features/include.cfg")
	if err != nil {
		t.Fatal(err)
	}
	out, err := importer.Write(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "# not a comment") {
			t.Errorf("a partition title made a line of its own: %q", line)
		}
	}
	if !strings.Contains(string(out), `partition "boot-----not-a-comment"`) {
		t.Errorf("the title's name is not the cleaned one:\n%s", out)
	}
}

func TestSyntaxErrorsAreLocated(t *testing.T) {
	for src, want := range map[string]string{
		"image a {\n  hdimage {\n":         "x.cfg:2: section hdimage is not closed",
		"image a {\n size = \"16M\n}\n":    "x.cfg:2: a string is not closed",
		"image a {\n /* open\n":            "x.cfg:2: a /* comment is not closed",
		"include(\"../etc/passwd\")\n":     "x.cfg:1: include(\"../etc/passwd\"): the file lies outside",
		"image a {\n partition p { = }\n}": "x.cfg:2: unexpected \"=\"",
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.cfg")
		os.WriteFile(p, []byte(src), 0o644)
		_, err := Import(p)
		if err == nil || !importer.AsSyntaxError(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want one starting %q", src, err, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"16M": 16 << 20, "512": 512, "0x8000": 0x8000, "010": 8, "2048s": 1 << 20, "1G": 1 << 30, "4k": 4096, "8K": 8192} {
		if got, ok := parseSize(s); !ok || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "16MB", "1_0", "-1", "x"} {
		if _, ok := parseSize(s); ok {
			t.Errorf("parseSize(%q) accepted", s)
		}
	}
}
