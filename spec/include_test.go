package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/spec"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInclude: a board family's layout pieces, shared by specs, merged in
// as if written in the spec, relative paths from the including file.
func TestInclude(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"pine64.fsb.hcl": `
include = ["layouts/sunxi.fsb.hcl"]
image "sd" {
  size = "1GiB"
  raw "spl" {
    offset = local.sunxi_spl_offset
    file   = "spl.bin"
  }
  dynamic "partition" {
    for_each = local.sunxi_partitions
    content {
      size = partition.value.size
      type = partition.value.type
    }
    labels = [partition.key]
  }
}
`,
		"layouts/sunxi.fsb.hcl": `
include = ["board.fsb.hcl"]
locals {
  sunxi_spl_offset = "8KiB"
  sunxi_partitions = { boot = { size = "64MiB", type = "esp" } }
}
`,
		"layouts/board.fsb.hcl": `board "pine64" { arch = "arm64" }`,
		"spl.bin":               "SPL",
	})
	s, diags := spec.Load(filepath.Join(dir, "pine64.fsb.hcl"), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	v := s.Variants[0]
	if v.Board.Name != "pine64" || string(v.Board.Arch) != "arm64" {
		t.Errorf("board = %+v, want the included pine64", v.Board)
	}
	img := v.Images[0]
	if len(img.Raw) != 1 || img.Raw[0].Offset != 8192 || len(img.Partitions) != 1 || img.Partitions[0].Type != "esp" {
		t.Errorf("image = %+v, raw %+v", img, img.Raw)
	}
	if len(s.Included) != 2 {
		t.Errorf("included = %v, want both files", s.Included)
	}
}

func TestIncludeProblems(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // in the error
		file  string // where it is reported
	}{
		{"not literal", map[string]string{"s.fsb.hcl": `
variable "x" { default = "a.fsb.hcl" }
include = [var.x]
`}, "read before variables", "s.fsb.hcl"},
		{"missing", map[string]string{"s.fsb.hcl": `include = ["nope.fsb.hcl"]`}, "does not exist", "s.fsb.hcl"},
		{"outside", map[string]string{"sub/s.fsb.hcl": `include = ["../x.fsb.hcl"]`, "x.fsb.hcl": ``}, "outside", "s.fsb.hcl"},
		{"cycle", map[string]string{"s.fsb.hcl": `include = ["a.fsb.hcl"]`, "a.fsb.hcl": `include = ["s.fsb.hcl"]`}, "included once", "a.fsb.hcl"},
		{"error in included", map[string]string{"s.fsb.hcl": `include = ["a.fsb.hcl"]`, "a.fsb.hcl": "image \"x\" {\n  size = \"1GiB\"\n  tabel = \"gpt\"\n}\n"}, "tabel", "a.fsb.hcl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			main := "s.fsb.hcl"
			if _, ok := c.files["sub/s.fsb.hcl"]; ok {
				main = "sub/s.fsb.hcl"
			}
			_, diags := spec.Load(filepath.Join(dir, main), spec.Options{})
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags[0]
			if !strings.Contains(d.Summary+" "+d.Detail, c.want) || d.Subject == nil || filepath.Base(d.Subject.Filename) != c.file {
				t.Errorf("diagnostic %s at %v; want %q in %s", diags.Error(), d.Subject, c.want, c.file)
			}
		})
	}
}

// TestIncludeFromRelativeSpecPath: a spec named by a relative path from
// another directory ("fsbench validate boards/x.fsb.hcl") finds its
// includes beside it, not beside the working directory.
func TestIncludeFromRelativeSpecPath(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"boards/x.fsb.hcl":             `include = ["layouts/board.fsb.hcl"]`,
		"boards/layouts/board.fsb.hcl": `board "x" { arch = "arm64" }`,
	})
	t.Chdir(dir)
	s, diags := spec.Load(filepath.Join("boards", "x.fsb.hcl"), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(s.Variants) == 0 || s.Variants[0].Board == nil || s.Variants[0].Board.Name != "x" {
		t.Errorf("the included board is missing")
	}
}
