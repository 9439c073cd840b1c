package spec_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/spec"
)

func load(t *testing.T, src string, opts spec.Options) *spec.Spec {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := spec.Load(path, opts)
	if diags.HasErrors() {
		t.Fatalf("unexpected diagnostics: %s", diags.Error())
	}
	return s
}

func TestSizeArithmetic(t *testing.T) {
	s := load(t, `
locals {
  eb = "4MiB"
}
image "d" {
  size  = local.eb * 64 + "512KiB" - 524288
  align = align_up("1000KiB", "1MiB")
  partition "a" {
    size = size("16MiB") / 2
    filesystem {
      type = "ext4"
      tuning {
        stride = "4MiB" / "4KiB"
      }
    }
  }
  partition "b" {
    size = "2MiB" > "1MiB" ? format_size(3 * "1MiB") : "1MiB"
  }
}
`, spec.Options{})
	img := s.Variants[0].Images[0]
	if img.Size != 256<<20 {
		t.Errorf("image size = %d, want %d", img.Size, 256<<20)
	}
	if img.Align != 1<<20 {
		t.Errorf("align = %d, want 1MiB", img.Align)
	}
	if got := img.Partitions[0].Size; got != 8<<20 {
		t.Errorf("partition a size = %d, want 8MiB", got)
	}
	if got := img.Partitions[0].Filesystem.Tuning["stride"]; got != int64(1024) {
		t.Errorf("stride = %#v, want 1024", got)
	}
	if got := img.Partitions[1].Size; got != 3<<20 {
		t.Errorf("partition b size = %d, want 3MiB", got)
	}
}

func TestVariablePrecedence(t *testing.T) {
	src := `
variable "n" {
  type    = number
  default = 1
}
variable "s" { default = "x" }
image "d" {
  size = var.n * "1MiB" + 64 * "1MiB"
}
`
	dir := t.TempDir()
	vf := filepath.Join(dir, "v.hcl")
	os.WriteFile(vf, []byte("n = 3\n"), 0o644)
	cases := []struct {
		name string
		opts spec.Options
		want int64
	}{
		{"default", spec.Options{}, 65},
		{"env", spec.Options{Environ: []string{"FSB_VAR_n=2", "n=9"}}, 66},
		{"var-file over env", spec.Options{Environ: []string{"FSB_VAR_n=2"}, VarFiles: []string{vf}}, 67},
		{"-var over var-file", spec.Options{VarFiles: []string{vf}, Vars: []string{"n=4"}}, 68},
	}
	for _, c := range cases {
		s := load(t, src, c.opts)
		if got := s.Variants[0].Images[0].Size >> 20; got != c.want {
			t.Errorf("%s: size = %dMiB, want %dMiB", c.name, got, c.want)
		}
	}
}

// TestUndeclaredVariables: a value from the environment for a variable
// the spec does not declare is for another spec (the build systems offer
// rootfs_tar and binaries to every spec) and is listed as ignored; a -var
// for one is an error that says how to declare it.
func TestUndeclaredVariables(t *testing.T) {
	src := `
variable "rootfs_tar" { default = "" }
image "d" { size = "64MiB" }
`
	s := load(t, src, spec.Options{Environ: []string{"FSB_VAR_binaries=/out/images", "FSB_VAR_rootfs_tar=/out/rootfs.tar", "FSB_VAR_=x"}})
	if !slices.Equal(s.IgnoredEnv, []string{"binaries"}) {
		t.Errorf("IgnoredEnv = %q, want [binaries]", s.IgnoredEnv)
	}
	path := filepath.Join(t.TempDir(), "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := spec.Load(path, spec.Options{Vars: []string{"binaries=/out/images"}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `declare it in the spec: variable "binaries" { type = string }`) {
		t.Errorf("-var for an undeclared variable: %v", diags)
	}
}

func TestMatrixExpansion(t *testing.T) {
	s := load(t, `
matrix "fs" { values = ["ext4", "f2fs"] }
matrix "tuning" {
  values = {
    tuned = { eb = "4MiB" }
    plain = {}
  }
}
locals {
  name = "${matrix.fs}/${variant.name}"
}
image "d" {
  size = "1GiB"
  partition "p" {
    size  = "400MiB"
    label = local.name
    filesystem {
      type = matrix.fs
      dynamic "geometry" {
        for_each = lookup(matrix.tuning, "eb", "") == "" ? [] : [lookup(matrix.tuning, "eb", "")]
        content {
          erase_block = geometry.value
        }
      }
    }
  }
}
`, spec.Options{})
	var names, labels []string
	geometry := map[string]bool{}
	for _, v := range s.Variants {
		names = append(names, v.Name)
		p := v.Images[0].Partitions[0]
		labels = append(labels, p.Label)
		geometry[v.Name] = p.Filesystem.Geometry != nil
	}
	// Map keys come in lexical order: plain before tuned.
	if got := strings.Join(names, " "); got != "ext4-plain ext4-tuned f2fs-plain f2fs-tuned" {
		t.Errorf("variants = %s", got)
	}
	if labels[3] != "f2fs/f2fs-tuned" {
		t.Errorf("label of last variant = %q", labels[3])
	}
	if geometry["ext4-plain"] || !geometry["ext4-tuned"] {
		t.Errorf("dynamic geometry per variant = %v", geometry)
	}
	if v := s.Variants[1].Matrix[1].Value; !v.Type().IsObjectType() || v.GetAttr("eb") != cty.StringVal("4MiB") {
		t.Errorf("matrix value = %#v", v)
	}
}

func TestDefaultsWithoutBoard(t *testing.T) {
	s := load(t, `image "d" { size = "64MiB" }`, spec.Options{})
	v := s.Variants[0]
	if v.Name != "default" || v.Board.Name != "qemu-x86_64" || v.Board.Storage != "vda" {
		t.Errorf("default variant/board = %s / %+v", v.Name, v.Board)
	}
	img := v.Images[0]
	if img.Table != "gpt" || img.Align != 1<<20 || img.SectorSize != 512 {
		t.Errorf("image defaults = %+v", img)
	}
}

func TestContentsPathsStayInRoots(t *testing.T) {
	dir := t.TempDir()
	inside := filepath.Join(dir, "spec")
	outside := filepath.Join(dir, "outside")
	os.MkdirAll(filepath.Join(inside, "rootfs"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.Symlink(outside, filepath.Join(inside, "link"))
	write := func(body string) string {
		p := filepath.Join(inside, "t.fsb.hcl")
		os.WriteFile(p, []byte(`image "d" {
  size = "64MiB"
  partition "p" {
    size = "8MiB"
    filesystem { type = "ext4" }
    contents { dir = `+body+` }
  }
}
`), 0o644)
		return p
	}
	for _, c := range []struct {
		dir   string
		roots []string
		ok    bool
	}{
		{`"rootfs"`, nil, true},
		{`"../outside"`, nil, false},
		{`"link"`, nil, false},
		{`"` + outside + `"`, nil, false},
		{`"` + outside + `"`, []string{outside}, true},
		{`"missing"`, nil, false},
	} {
		_, diags := spec.Load(write(c.dir), spec.Options{Roots: c.roots})
		if diags.HasErrors() == c.ok {
			t.Errorf("dir = %s roots %v: diagnostics %v, want ok=%v", c.dir, c.roots, diags, c.ok)
		}
	}
}

// A dynamic tuning block sees its iterator, as a dynamic geometry block
// does, and an unknown option in it is still named.
func TestDynamicTuning(t *testing.T) {
	s := load(t, `
matrix "profile" { values = ["dup", "single"] }
image "d" {
  size = "1GiB"
  partition "p" {
    size = "400MiB"
    filesystem {
      type = "btrfs"
      dynamic "tuning" {
        for_each = [matrix.profile]
        content {
          data_profile = tuning.value
        }
      }
    }
  }
}
`, spec.Options{})
	for i, want := range []string{"dup", "single"} {
		if got := s.Variants[i].Images[0].Partitions[0].Filesystem.Tuning["data_profile"]; got != want {
			t.Errorf("variant %s: data_profile = %v, want %s", s.Variants[i].Name, got, want)
		}
	}
}
