package cli

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
)

func TestSummaryCountsOutcomesAndShowsDD(t *testing.T) {
	pl := func(cons, data string) resultframe.Result {
		return resultframe.Result{Recipe: "power_loss", Name: "watchdog", Case: "async-small_files", Status: "ok",
			Attrs: map[string]string{"consistency": cons, "data": data}}
	}
	dd := resultframe.Result{Recipe: "dd_sweep", Name: "block", Case: "bs=4KiB", Status: "ok",
		Metrics: []resultframe.Metric{{Name: "write_rate", Value: 12.5, Unit: "MB/s"}, {Name: "read_rate", Value: 40, Unit: "MB/s"}}}
	var b strings.Builder
	writeSummary(&b, []variantResults{
		{name: "ext4", results: []resultframe.Result{pl("AutoFix", "Intact"), pl("AutoFix", "LostUnsynced"), pl("Clean", "Intact"), dd}},
		{name: "btrfs", results: []resultframe.Result{pl("Clean", "Intact")}},
	})
	out := b.String()
	for _, want := range []string{"AutoFix 2 Clean 1", "Intact 2 LostUnsynced 1", "Clean 1", "Intact 1", "12.5", "40.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
