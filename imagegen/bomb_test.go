package imagegen

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// TestContentsThatDoNotFit: a gzip bomb (a small tarball holding a file of
// 512 MiB of zeros) and a tree of many files, each into a 64 MiB
// partition, stop at the member that goes past the partition's size,
// without staging the rest, and say so.
func TestContentsThatDoNotFit(t *testing.T) {
	needFS(t, "ext4")
	testenv.Tool(t, "fakeroot")
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.tar.gz")
	writeBomb(t, bomb, []int64{1 << 20, 512 << 20})
	many := filepath.Join(dir, "many.tar.gz")
	sizes := make([]int64, 2000)
	for i := range sizes {
		sizes[i] = 64 << 10 // 125 MiB in all
	}
	writeBomb(t, many, sizes)
	for _, c := range []struct{ tar, at string }{{"bomb.tar.gz", "/f1"}, {"many.tar.gz", "/f"}} {
		specPath := filepath.Join(dir, "spec.fsb.hcl")
		src := fmt.Sprintf(`
image "disk" {
  size = "128MiB"
  partition "root" {
    size = "64MiB"
    root = true
    filesystem { type = "ext4" }
    contents { tar = %q }
  }
}
`, c.tar)
		if err := os.WriteFile(specPath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, p, diags := plan.LoadSealed(specPath, spec.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		start := time.Now()
		_, err := Build(context.Background(), p, p.Variants[0], Options{OutDir: filepath.Join(dir, "out"), SpecDir: s.Dir,
			NoPayload: true, CacheDir: testbin.CacheDir()})
		if err == nil || !strings.Contains(err.Error(), "do not fit partition root (64MiB)") || !strings.Contains(err.Error(), c.at) {
			t.Errorf("%s: %v", c.tar, err)
		}
		t.Logf("%s refused in %v: %v", c.tar, time.Since(start).Round(time.Millisecond), err)
	}
}

// writeBomb writes a gzip tarball of files f0, f1, ... of zeros.
func writeBomb(t *testing.T, path string, sizes []int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	zeros := make([]byte, 1<<20)
	for i, n := range sizes {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("f%d", i), Mode: 0o644, Size: n}); err != nil {
			t.Fatal(err)
		}
		for left := n; left > 0; left -= int64(len(zeros)) {
			if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []io.Closer{tw, zw} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
