package report

import (
	"fmt"
	"strings"
	"testing"
)

// Boot phases: one stacked bar per candidate, each phase the mean of its
// boots; a phase no candidate measured is left out, one only some did is
// zero for the others.
func TestBootPhaseChart(t *testing.T) {
	var lines []string
	seq := 0
	for _, v := range []struct {
		variant string
		boot    bool // through a bootloader
	}{{"uboot", true}, {"direct", false}} {
		for it := 1; it <= 3; it++ {
			seq++
			phases := fmt.Sprintf(`{"name":"phase_kernel","value":%v,"unit":"s"},{"name":"phase_userspace","value":1.5,"unit":"s"}`, 2+float64(it)/10)
			if v.boot {
				phases += `,{"name":"phase_bootloader","value":3,"unit":"s"},{"name":"phase_kernel_load","value":1,"unit":"s"}`
			}
			lines = append(lines, fmt.Sprintf(`{"v":1,"run":"r-%s","seq":%d,"recipe":"boot_time","name":"rootfs","case":"single","variant":"%s","iter":%d,"status":"ok","metrics":[{"name":"host_boot","value":1.5,"unit":"s"},%s]}`,
				v.variant, seq, v.variant, it, phases))
		}
	}
	ins, err := Load([]string{writeFile(t, t.TempDir(), "r.jsonl", strings.Join(lines, "\n")+"\n")})
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(ins, Options{})
	var ch *Chart
	for _, c := range rep.Charts {
		if strings.Contains(c.Slug, "boot-phases-rootfs") {
			ch = c
		}
	}
	if ch == nil || ch.Stack == nil {
		t.Fatalf("no phase chart among %d charts", len(rep.Charts))
	}
	sc := ch.Stack
	if got := strings.Join(sc.Categories, "|"); got != "bootloader (to the hand-over)|kernel load (to its first line)|kernel (to the root mount)|userspace (to the prompt)" {
		t.Errorf("phases %s", got)
	}
	if len(sc.Rows) != 2 || sc.Rows[0].Label != "uboot" || sc.Rows[1].Label != "direct" {
		t.Fatalf("rows %+v", sc.Rows)
	}
	want := [][]float64{{3, 1, 2.2, 1.5}, {0, 0, 2.2, 1.5}}
	for i, r := range sc.Rows {
		for k, v := range r.Values {
			if d := v - want[i][k]; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s %s: %v, want %v", r.Label, sc.Categories[k], v, want[i][k])
			}
		}
	}
	svg := ch.SVG()
	if n := strings.Count(svg, `class="seg"`); n != 6 {
		t.Errorf("%d segments drawn, want 6", n)
	}
	if !strings.Contains(svg, ">8 s<") && !strings.Contains(svg, ">7.7") {
		t.Errorf("the scale does not reach the longest boot (7.7 s):\n%s", svg)
	}
	if got := strings.Join(ch.Table.Rows[0], " | "); got != "single | uboot | 3.000 s (n=3) | 1.000 s (n=3) | 2.200 s (n=3) | 1.500 s (n=3) | 7.700 s" {
		t.Errorf("table row %s", got)
	}
}
