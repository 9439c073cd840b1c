package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// kernelRun makes the boot_time results of one run on kernel: three
// iterations per variant, each boot base+iteration/100 s (serial) and
// 0.1 s less (kernel log). A variant in failed has its second iteration
// failed instead.
func kernelRun(kernel string, base map[string]float64, failed string) Input {
	in := Input{Path: kernel + ".jsonl"}
	attrs := map[string]string{"target": "qemu", "machine": "qemu-system-x86_64 q35 virtio", "accel": "tcg", "disk": "virtio",
		"kernel": kernel, "kernel_package": "linux-image-" + kernel + ":amd64=1", "runner": "v1"}
	seq := uint64(0)
	for _, v := range []string{"ext4", "f2fs", "btrfs"} {
		b, ok := base[v]
		if !ok {
			continue
		}
		for it := 1; it <= 3; it++ {
			seq++
			r := resultframe.Result{RunID: "run-" + kernel, Seq: seq, Recipe: "boot_time", Name: "rootfs", Case: "single",
				Variant: v, Iteration: it, Status: resultframe.StatusOK, Attrs: attrs}
			if v == failed && it == 2 {
				r.Status, r.Error = resultframe.StatusFailed, "no prompt"
			} else {
				s := b + float64(it)/100
				r.Metrics = []resultframe.Metric{{Name: "host_boot", Value: s, Unit: "s"}, {Name: "target_boot", Value: s - 0.1, Unit: "s"}}
			}
			in.Results = append(in.Results, r)
		}
	}
	return in
}

// TestBootTimeAcrossKernels is the study's "boot time depending on kernel
// version": one group per kernel, one bar per filesystem, each bar the
// mean of its own context.
func TestBootTimeAcrossKernels(t *testing.T) {
	a := kernelRun("6.1.0-50-amd64", map[string]float64{"ext4": 0.6, "f2fs": 0.5, "btrfs": 0.8}, "")
	for i, r := range a.Results {
		if r.Variant == "btrfs" {
			a.Results[i].Status, a.Results[i].Metrics, a.Results[i].Error = resultframe.StatusFailed, nil, "no prompt"
		}
	}
	b := kernelRun("6.1.0-57-amd64", map[string]float64{"ext4": 0.4, "f2fs": 0.45, "btrfs": 0.7}, "f2fs")
	rep := Build([]Input{a, b}, Options{})
	if rep.Across == nil {
		t.Fatal("no charts across the two kernels")
	}
	if line := rep.Across.Line(); strings.Contains(line, "kernel") || !strings.Contains(line, "accelerator tcg") {
		t.Errorf("what the contexts share: %q", line)
	}
	charts := rep.chartsOf(rep.Across)
	var titles []string
	for _, ch := range charts {
		titles = append(titles, ch.Slug+" "+ch.Title)
	}
	want := []string{
		"all-01-boot-time-rootfs-host Boot time rootfs by kernel: serial (host_boot)",
		"all-02-boot-time-rootfs-target Boot time rootfs by kernel: kernel log (target_boot)",
		"all-03-boot-variation-rootfs Boot time rootfs variation by kernel",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Fatalf("charts across contexts:\n%s\nwant\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	host := charts[0].Bars
	if got := strings.Join(host.Groups, " | "); got != "A: 6.1.0-50-amd64 | B: 6.1.0-57-amd64" {
		t.Errorf("groups %q", got)
	}
	if got := strings.Join(host.Series, " "); got != "ext4 f2fs btrfs" {
		t.Errorf("series %q", got)
	}
	for g, c := range rep.Contexts {
		for s, v := range host.Series {
			cell := host.Cells[g][s]
			var want *Row
			for _, r := range rep.Rows {
				if r.Context == c && r.Variant == v && r.Metric == "host_boot" {
					want = r
				}
			}
			switch {
			case want == nil && c.ID == "A" && v == "btrfs":
				if cell.Has || cell.Missing != "failed" {
					t.Errorf("btrfs, failed on A: %+v", cell)
				}
			case want == nil:
				t.Errorf("no row for %s on %s", v, c.ID)
			case !cell.Has || math.Abs(cell.Value-want.Mean*1000) > 1e-9 || cell.Label != "CV "+pct(want.CV):
				t.Errorf("%s on %s: bar %+v, want the context's mean %v ms, CV %s", v, c.ID, cell, want.Mean*1000, pct(want.CV))
			case want.N != 3 && !(c.ID == "B" && v == "f2fs" && want.N == 2):
				t.Errorf("%s on %s pools %d iterations", v, c.ID, want.N)
			}
		}
	}
	if host.Unit != "ms" {
		t.Errorf("unit %q", host.Unit)
	}
	// The f2fs failure on B is in the table's n and nowhere else; btrfs
	// failed on A and has a row saying so.
	if tab := fmt.Sprint(charts[0].Table.Rows); !strings.Contains(tab, "[B: 6.1.0-57-amd64 f2fs 2 (+1 failed)") ||
		!strings.Contains(tab, "[A: 6.1.0-50-amd64 btrfs 0 (+3 failed)") {
		t.Errorf("table rows %s", tab)
	}
	if cv := charts[2].Bars; cv.Unit != "CV %" || !cv.Cells[0][0].Has {
		t.Errorf("variation chart %+v", cv)
	}
	for _, page := range []string{rep.HTML(), rep.Markdown()} {
		if !strings.Contains(page, "Across contexts") || !strings.Contains(page, "A: 6.1.0-50-amd64") {
			t.Error("a page has no section across contexts")
		}
	}
	if w := rep.contextWarning(); !strings.Contains(w, "sets their boot times side by side") {
		t.Errorf("warning %q", w)
	}
}

// TestAcrossNamesWhatDiffers: the kernel package goes with the kernel, and
// a spec fingerprint names the groups only when nothing else differs.
func TestAcrossNamesWhatDiffers(t *testing.T) {
	a := kernelRun("6.1.0-50-amd64", map[string]float64{"ext4": 0.6}, "")
	b := kernelRun("6.1.0-50-amd64", map[string]float64{"ext4": 0.5}, "")
	for i := range b.Results {
		b.Results[i].RunID = "other"
		b.Results[i].Attrs = map[string]string{"fingerprint": "sha256:0123456789abcdef0123456789abcdef"}
		for k, v := range a.Results[i].Attrs {
			b.Results[i].Attrs[k] = v
		}
	}
	rep := Build([]Input{a, b}, Options{})
	charts := rep.chartsOf(rep.Across)
	if len(charts) == 0 || !strings.HasSuffix(charts[0].Title, "by spec fingerprint: serial (host_boot)") {
		t.Fatalf("charts %v", charts)
	}
	if g := charts[0].Bars.Groups; g[0] != "A: (not recorded)" || !strings.HasPrefix(g[1], "B: sha256:") {
		t.Errorf("groups %q", g)
	}

	c := kernelRun("6.12.9-amd64", map[string]float64{"ext4": 0.6}, "")
	rep = Build([]Input{a, b, c}, Options{})
	if ch := rep.chartsOf(rep.Across); !strings.HasSuffix(ch[0].Title, "by kernel: serial (host_boot)") {
		t.Errorf("with the kernel changed too: %q", ch[0].Title)
	}

	// -disk sd against virtio: the QEMU machine's name ends in the disk.
	sd := kernelRun("6.1.0-50-amd64", map[string]float64{"ext4": 0.9}, "")
	for i := range sd.Results {
		sd.Results[i].RunID = "sd"
		sd.Results[i].Attrs = map[string]string{}
		for k, v := range a.Results[i].Attrs {
			sd.Results[i].Attrs[k] = v
		}
		sd.Results[i].Attrs["disk"] = "sd"
		sd.Results[i].Attrs["machine"] = "qemu-system-x86_64 q35 sd"
	}
	rep = Build([]Input{a, sd}, Options{})
	ch := rep.chartsOf(rep.Across)
	if !strings.HasSuffix(ch[0].Title, "by storage device: serial (host_boot)") || strings.Join(ch[0].Bars.Groups, " ") != "A: virtio B: sd" {
		t.Errorf("-disk sd against virtio: %q, groups %q", ch[0].Title, ch[0].Bars.Groups)
	}
}
