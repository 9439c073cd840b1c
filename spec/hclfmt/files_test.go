package hclfmt

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// makeTree creates the given files (with parent directories) under a new
// temporary directory and returns it.
func makeTree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var treeFiles = []string{
	"b.hcl", "a.fsb.hcl", "notes.txt", "a.hcl.bak",
	"sub/c.fsb.hcl", "sub/deeper/d.hcl",
	"testdata/t.hcl",
	".git/config.hcl", ".hidden/h.hcl", "sub/.cache/x.hcl",
}

func TestFiles(t *testing.T) {
	root := makeTree(t, treeFiles...)
	t.Chdir(root) // relative paths keep expectations readable

	tests := []struct {
		name      string
		paths     []string
		recursive bool
		want      []string
	}{
		{"dir", []string{"."}, false, []string{"a.fsb.hcl", "b.hcl"}},
		{"dir recursive", []string{"."}, true, []string{
			"a.fsb.hcl", "b.hcl", "sub/c.fsb.hcl", "sub/deeper/d.hcl", "testdata/t.hcl",
		}},
		{"subdir recursive", []string{"sub"}, true, []string{"sub/c.fsb.hcl", "sub/deeper/d.hcl"}},
		{"file taken as is", []string{"notes.txt"}, false, []string{"notes.txt"}},
		{"hidden dir named explicitly", []string{".hidden"}, true, []string{".hidden/h.hcl"}},
		{"argument order kept, duplicates dropped", []string{"sub", "./b.hcl", ".", "sub/c.fsb.hcl"}, false,
			[]string{"sub/c.fsb.hcl", "./b.hcl", "a.fsb.hcl"}},
		{"no arguments", nil, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Files(tt.paths, tt.recursive)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = filepath.FromSlash(w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Files(%q, %v) = %q, want %q", tt.paths, tt.recursive, got, want)
			}
		})
	}
}

func TestFilesMissingPath(t *testing.T) {
	root := makeTree(t, "a.hcl")
	if got, err := Files([]string{filepath.Join(root, "nope.hcl")}, false); err == nil {
		t.Errorf("Files on a missing path = %q, want an error", got)
	}
}
