package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/wire/runplan"
)

func TestMkfsStatsSizesAndKernelThreads(t *testing.T) {
	// What the mount of each filesystem starts on Linux 6.x: ext4 its
	// journal thread, xfs its log thread and the rescuers of its
	// workqueues, btrfs its cleaner and transaction threads and its
	// workqueues' rescuers.
	want := map[string][]string{
		"ext4":  {"jbd2/"},
		"xfs":   {"xfsaild/", "xfs-buf/", "xfs-log/"},
		"btrfs": {"btrfs-cleaner", "btrfs-transaction", "btrfs-worker"},
	}
	for _, fs := range testFilesystems {
		t.Run(fs, func(t *testing.T) {
			part := loopPart(t, fs, 320<<20)
			res := runSteps(t, part, runplan.Step{Recipe: "mkfs_stats", Test: "mkfs", Case: "single", On: "bench",
				Params: runplan.Params{"iterations": json.Number("2"), "settle": "100ms", "timeout": "1m"}})
			okResults(t, res, 2)
			for _, r := range res {
				size, used, avail := metric(r, "fs_size"), metric(r, "fs_used"), metric(r, "fs_avail")
				if size < 200<<20 || size > 320<<20 || used <= 0 || avail <= 0 || used+avail > size {
					t.Errorf("size %v used %v avail %v", size, used, avail)
				}
				if pct := metric(r, "used_percent"); pct <= 0 || pct > 20 {
					t.Errorf("an empty %s is %v%% used", fs, pct)
				}
				names := strings.Split(r.Attrs["kthreads_new"], ",")
				if metric(r, "kthreads_added") != float64(len(names)) || len(names) == 0 {
					t.Errorf("kthreads_added %v, names %q", metric(r, "kthreads_added"), names)
				}
				for _, w := range want[fs] {
					if !strings.Contains(r.Attrs["kthreads_new"], w) {
						t.Errorf("iteration %d: no %s thread among %q", r.Iteration, w, names)
					}
				}
			}
			if at, _ := linux.MountedAt(part.Device); len(at) != 0 {
				t.Errorf("still mounted at %v", at)
			}
		})
	}
}
