package runner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/workload"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestSmallFilesPostmarkAndBonnie(t *testing.T) {
	for _, fs := range testFilesystems {
		t.Run(fs, func(t *testing.T) {
			t.Parallel()
			part := loopPart(t, fs, 320<<20)
			params := func(mode string, buffered bool) runplan.Params {
				return runplan.Params{"mode": mode, "files": json.Number("200"), "transactions": json.Number("1000"),
					"min_size": json.Number("500"), "max_size": json.Number("10000"), "read_block": json.Number("512"),
					"write_block": json.Number("512"), "subdirectories": json.Number("4"), "read_bias": json.Number("5"),
					"create_bias": json.Number("5"), "buffered": buffered, "random_seed": json.Number("42"),
					"bonnie_size": json.Number("2097152"), "bonnie_ram": json.Number("1048576"), "bonnie_files": json.Number("1"),
					"timeout": "2m"}
			}
			res := runSteps(t, part,
				runplan.Step{Recipe: "small_files", Test: "sf", Case: "postmark", On: "bench", Params: params("postmark", true)},
				runplan.Step{Recipe: "small_files", Test: "sf", Case: "postmark-raw", On: "bench", Params: params("postmark", false)},
				runplan.Step{Recipe: "small_files", Test: "sf", Case: "bonnie", On: "bench", Params: params("bonnie", true)})
			if len(res) != 3 {
				t.Fatalf("got %d results", len(res))
			}
			for _, r := range res {
				if r.Status != resultframe.StatusOK {
					t.Fatalf("%s: %s", r.Case, r.Error)
				}
			}
			buf, raw := res[0], res[1]
			created, deleted := metric(buf, "files_created"), metric(buf, "files_deleted")
			if created != deleted || metric(buf, "creation_mixed") != created-200 ||
				created-metric(buf, "deletion_mixed") != metric(buf, "deletion_alone") {
				t.Errorf("postmark counts do not add up: %+v", buf.Metrics)
			}
			if metric(buf, "transactions") != 1000 ||
				metric(buf, "files_read")+metric(buf, "files_appended") > 1000 ||
				metric(buf, "creation_mixed")+metric(buf, "deletion_mixed") > 1000 {
				t.Errorf("postmark transactions: %+v", buf.Metrics)
			}
			// The seed fixes the work, buffered or not, on every filesystem.
			for _, name := range []string{"files_created", "files_read", "files_appended", "deletion_alone", "bytes_read", "bytes_written"} {
				if metric(buf, name) != metric(raw, name) || metric(buf, name) == 0 {
					t.Errorf("%s: buffered %v, unbuffered %v", name, metric(buf, name), metric(raw, name))
				}
			}
			for _, name := range []string{"total_time", "transactions_per_s", "read_rate", "write_rate", "creation_alone_per_s", "deletion_alone_per_s"} {
				if metric(buf, name) <= 0 {
					t.Errorf("postmark %s = %v", name, metric(buf, name))
				}
			}
			bon := res[2]
			for _, name := range []string{"put_block", "rewrite", "get_block", "seeks", "seq_create", "seq_stat", "seq_del", "ran_create", "ran_stat", "ran_del"} {
				v, cpu := metric(bon, name), metric(bon, name+"_cpu")
				// A test that ran for less than bonnie++'s minimum time
				// has a CPU share made of whole scheduler ticks, which
				// can exceed 100%; bonnie++ prints +++++ there.
				fast := slices.Contains(strings.Split(bon.Attrs["too_fast"], ","), name)
				if v <= 0 || cpu < 0 || (!fast && cpu > 100*float64(workload.BonnieSeekers)+50) {
					t.Errorf("bonnie %s = %v, %v%% CPU", name, v, cpu)
				}
			}
			if metric(bon, "file_size") != 2<<20 || metric(bon, "num_files") != 1 {
				t.Errorf("bonnie: %+v", bon.Metrics)
			}
			workDirGone(t, part)
		})
	}
}

func TestSmallFilesBonnieRefusesTooLittleFile(t *testing.T) {
	part := loopPart(t, "ext4", 64<<20)
	res := runSteps(t, part, runplan.Step{Recipe: "small_files", Test: "sf", Case: "bonnie", On: "bench",
		Params: runplan.Params{"mode": "bonnie", "bonnie_size": json.Number("4194304"), "bonnie_ram": json.Number("4194304"),
			"bonnie_files": json.Number("1"), "random_seed": json.Number("1")}})
	if len(res) != 1 || res[0].Status != resultframe.StatusFailed || !strings.Contains(res[0].Error, "twice bonnie_ram") {
		t.Fatalf("%+v", res)
	}
	workDirGone(t, part)
}
