package spec_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// FuzzLoad feeds arbitrary bytes through decoding, evaluation and plan
// resolution. Any input may be rejected; none may panic or allocate more
// than 256 MiB, and every diagnostic of a rejected input must carry a
// position or be about the input as a whole.
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
	// Seeds at the evaluation limits, for the fuzzer to grow past them.
	for _, seed := range []string{
		"locals {\n  x = " + strings.Repeat("(", spec.MaxForNesting+130) + "1" + strings.Repeat(")", spec.MaxForNesting+130) + "\n}\n",
		"locals {\n  x = setproduct(range(40), range(40), range(40))\n}\n",
		"locals {\n  a = \"xxxx\"\n  b = replace(local.a, \"x\", \"xxxxxxxx\")\n  c = replace(local.b, \"x\", \"xxxxxxxx\")\n}\n",
		"locals {\n  a = \"xx\"\n  b = \"${local.a}${local.a}\"\n  c = \"${local.b}${local.b}\"\n}\n",
		"locals {\n  x = format(\"%99999d\", 1)\n  y = [for a in range(9): [for b in range(9): [for c in range(9): c]]]\n}\n",
		"locals {\n  a = range(1000)\n  x = flatten([for i in local.a : local.a])\n}\n",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.fsb.hcl")
	f.Fuzz(func(t *testing.T, src []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s, diags := spec.LoadSource(path, src, spec.Options{})
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Errorf("one input of %d bytes allocated %d MiB", len(src), alloc>>20)
		}
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
