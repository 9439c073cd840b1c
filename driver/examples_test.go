package driver

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/report"
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
	{"ext4-barrier", "barrier", []string{"target=qemu", "disk_size=1GiB", "data_size=256MiB", "sqlite_transactions=100", "settle_max=2"}},
	{"rpi-dd-sweep", "f2fs", []string{"target=qemu", "card_size=1GiB", "rootfs_size=384MiB", "block_total=8MiB", `file_sizes=["4MiB","8MiB","16MiB"]`}},
}

// TestExampleReportsInQEMU runs the short form of each example in QEMU and
// checks that its report has a chart for every test of the spec.
func TestExampleReportsInQEMU(t *testing.T) {
	for _, tool := range []string{"qemu-system-x86_64", "apt-get", "fakeroot"} {
		testenv.Tool(t, tool)
	}
	if testing.Short() {
		t.Skip("boots VMs")
	}
	t.Parallel()
	for _, run := range shortRuns {
		t.Run(run.example, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
			defer cancel()
			s, p := loadSpec(t, filepath.Join("..", "examples", run.example+".fsb.hcl"), run.vars...)
			i := slices.IndexFunc(p.Variants, func(v plan.Variant) bool { return v.Name == run.variant })
			if i < 0 {
				t.Fatalf("no variant %s", run.variant)
			}
			v := p.Variants[i]
			job := testJob(t, s, p, t.TempDir())
			job.Variants = []plan.Variant{v}
			o := runJob(t, ctx, job)[v.Name]
			if o == nil {
				return
			}
			for _, r := range o.Summary.Results {
				if r.Status != resultframe.StatusOK {
					t.Errorf("%s %s/%s #%d: %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
				}
			}
			checkCharts(t, v.Tests, o.Results)
		})
	}
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
		if rec, ok := recipes.Lookup(test.Recipe); ok && len(rec.Report.Charts) == 0 {
			continue // flash_info: a table only
		}
		key := strings.ReplaceAll(test.Recipe, "_", "-") + "-" + test.Name
		if test.Recipe == "fio" {
			key = "fio-bandwidth-" + test.Name
		}
		if !strings.Contains(all, key) {
			t.Errorf("no chart for %s %q among %s", test.Recipe, test.Name, all)
		}
	}
}
