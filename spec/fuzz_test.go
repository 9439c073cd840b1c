package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// FuzzLoad feeds arbitrary bytes through decoding, evaluation and plan
// resolution. Any input may be rejected; none may panic, and every
// diagnostic of a rejected input must carry a position or be about the
// input as a whole.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"../examples/*.fsb.hcl", "testdata/*/*.fsb.hcl"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`image "d" { size = "1MiB" * 3 }`))
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.fsb.hcl")
	f.Fuzz(func(t *testing.T, src []byte) {
		s, diags := spec.LoadSource(path, src, spec.Options{})
		if !diags.HasErrors() {
			_, pdiags := plan.Resolve(s)
			diags = append(diags, pdiags...)
		}
		for _, d := range diags {
			if d.Subject == nil {
				t.Errorf("diagnostic without a position: %s: %s", d.Summary, d.Detail)
			}
		}
	})
}
