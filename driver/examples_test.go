package driver

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/report"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// shortRuns are the examples' reduced forms in QEMU (docs/examples.md):
// one variant each. elc2015's takes five minutes and is run by hand; its
// reliability tests are TestReliabilityInQEMU's.
var shortRuns = []struct {
	example, variant string
	vars             []string
}{
	{"journal-fs", "ext3-journal", []string{"target=qemu", "disk_size=1GiB", "bonnie_size=8MiB", "bonnie_files=2", "postmark_transactions=2000"}},
	{"ext4-barrier", "barrier", []string{"target=qemu", "disk_size=1GiB", "data_size=256MiB", "sqlite_transactions=100"}},
	{"rpi-dd-sweep", "f2fs", []string{"target=qemu", "card_size=1GiB", "rootfs_size=384MiB", "block_total=8MiB", `file_sizes=["4MiB","8MiB","16MiB"]`}},
}

// TestExampleReportsInQEMU runs the short form of each example in QEMU and
// checks that its report has a chart for every test of the spec.
func TestExampleReportsInQEMU(t *testing.T) {
	for _, tool := range []string{"qemu-system-x86_64", "apt-get", "fakeroot"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (scripts/test.sh installs it)", tool)
		}
	}
	if testing.Short() {
		t.Skip("boots VMs")
	}
	t.Parallel()
	bin := testbin.Runner(t, "")
	log := logrus.New()
	log.Out = io.Discard
	if testing.Verbose() {
		log.Out = os.Stderr
		log.Level = logrus.InfoLevel
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, run := range shortRuns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer vmSlot()()
			t.Run(run.example, func(t *testing.T) {
				s, p, diags := plan.Load(filepath.Join("..", "examples", run.example+".fsb.hcl"), spec.Options{Vars: run.vars}, true)
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				var v *plan.Variant
				for i := range p.Variants {
					if p.Variants[i].Name == run.variant {
						v = &p.Variants[i]
					}
				}
				if v == nil {
					t.Fatalf("no variant %s", run.variant)
				}
				out := t.TempDir()
				if _, err := imagegen.Build(ctx, p, *v, imagegen.Options{OutDir: out, SpecDir: s.Dir, Epoch: 315532800,
					Log: log, Runner: bin, CacheDir: testbin.CacheDir(), Jobs: 1}); err != nil {
					t.Fatal(err)
				}
				o, err := RunQEMU(ctx, Variant{Name: v.Name, Dir: filepath.Join(out, v.Name), Runner: bin, Bootargs: v.Bootargs},
					QEMU{Accel: "auto", Disk: "virtio", MemoryMiB: 512, CPUs: 1, KernelCache: filepath.Join(testbin.CacheDir(), "kernels")},
					Options{Log: log})
				if err != nil {
					t.Fatalf("%v (console: %s)", err, tail(o))
				}
				for _, r := range o.Summary.Results {
					if r.Status != resultframe.StatusOK {
						t.Errorf("%s %s/%s #%d: %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
					}
				}
				checkCharts(t, v.Tests, o.Results)
			})
		}()
	}
	wg.Wait()
}

// checkCharts builds the report of a results file and wants a chart for
// every test: its slug names the recipe and the test ("fio-bandwidth-seq",
// "dd-sweep-block", "power-loss-watchdog-consistency").
func checkCharts(t *testing.T, tests []plan.Test, results string) {
	t.Helper()
	ins, err := report.Load([]string{results})
	if err != nil {
		t.Fatal(err)
	}
	rep := report.Build(ins, report.Options{})
	var slugs []string
	for _, c := range rep.Charts {
		slugs = append(slugs, c.Slug)
	}
	all := strings.Join(slugs, " ")
	for _, test := range tests {
		key := strings.ReplaceAll(test.Recipe, "_", "-") + "-" + test.Name
		if test.Recipe == "fio" {
			key = "fio-bandwidth-" + test.Name
		}
		if !strings.Contains(all, key) {
			t.Errorf("no chart for %s %q among %s", test.Recipe, test.Name, all)
		}
	}
}
