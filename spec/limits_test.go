package spec

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// hostileSpecs build much from little; each must end with a located error
// naming the limit, never with a crash or an exhausted machine.
var hostileSpecs = map[string]struct{ src, want string }{
	"nested parentheses": {"locals {\n  x = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n}\n", "Nesting too deep"},
	"nested lists":       {"locals {\n  x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n}\n", "Nesting too deep"},
	"setproduct":         {"locals {\n  x = setproduct(range(1000), range(1000), range(1000))\n}\n", "would make 1e+09 elements"},
	"range":              {"locals {\n  x = range(1000000000)\n}\n", "would make 1e+09 elements"},
	"replace bomb":       {replaceBomb(40), "replace would make a string"},
	"template doubling":  {templateDoubling(40), "Value too large"},
	"format padding":     {"locals {\n  x = format(\"%1000000000d\", 1)\n}\n", "pads to 1000000000 characters"},
	"for nesting": {"locals {\n  x = [for a in range(100): [for b in range(100): [for c in range(100): [for d in range(100): 1]]]]\n}\n",
		"For expressions nested too deep"},
	"flatten of a product": {"locals {\n  a = range(1000)\n  x = flatten([for i in local.a : local.a])\n}\n", "too large"},
	"many locals":          {manyLocals(3000), "Too many declarations"},
}

func replaceBomb(n int) string {
	var b strings.Builder
	b.WriteString("locals {\n  a0 = \"xxxxxxxx\"\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  a%d = replace(local.a%d, \"x\", \"xx\")\n", i, i-1)
	}
	b.WriteString("}\n")
	return b.String()
}

func templateDoubling(n int) string {
	var b strings.Builder
	b.WriteString("locals {\n  a0 = \"xxxxxxxx\"\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  a%d = \"${local.a%d}${local.a%d}\"\n", i, i-1, i-1)
	}
	b.WriteString("}\n")
	return b.String()
}

func manyLocals(n int) string {
	var b strings.Builder
	b.WriteString("locals {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  l%d = %d\n", i, i)
	}
	b.WriteString("}\n")
	return b.String()
}

func TestEvaluationLimits(t *testing.T) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for name, c := range hostileSpecs {
		_, diags := LoadSource("hostile.fsb.hcl", []byte(c.src), Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, diags, c.want)
			continue
		}
		for _, d := range diags {
			if d.Severity == hcl.DiagError && (d.Subject == nil || d.Subject.Filename != "hostile.fsb.hcl" || d.Subject.Start.Line < 1) {
				t.Errorf("%s: an error without its place: %v", name, d)
			}
		}
	}
	// The memory the whole corpus took: a limit that did not hold would
	// have allocated gigabytes.
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
		t.Errorf("validating the hostile specs allocated %d MiB", alloc>>20)
	}
	if after.HeapSys > 1<<30 {
		t.Errorf("the heap grew to %d MiB", after.HeapSys>>20)
	}
}

// The limits are far above what specs need: the examples and a spec at the
// limits load.
func TestLimitsLeaveRoom(t *testing.T) {
	src := "locals {\n  a = range(1024)\n  b = [for i in range(31) : [for j in range(31) : i * j]]\n  s = join(\"\", [for i in range(60) : format(\"%1000s\", \"x\")])\n}\n"
	if _, diags := LoadSource("ok.fsb.hcl", []byte(src), Options{}); diags.HasErrors() {
		t.Errorf("a spec within the limits: %v", diags)
	}
}
