package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// reliabilitySpec is examples/elc2015.fsb.hcl's reliability part, cut
// down to run in CI: a few watchdog resets, a host power cut, and the
// dm-flakey cases on ext4 and btrfs.
const reliabilitySpec = `
variable "power_loss_iterations" {
  type    = number
  default = 2
}

matrix "fs" {
  values = ["ext4", "btrfs"]
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "640MiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  partition "crash" {
    grow = true
    filesystem {
      type       = matrix.fs
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }
}

test "power_loss" "watchdog" {
  on              = partition.crash
  iterations      = var.power_loss_iterations
  mount           = ["async", "sync"]
  cut_after       = "4s"
  small_file_size = "256KiB"
}

test "power_loss" "host" {
  on         = partition.crash
  iterations = 1
  trigger    = "host_kill"
  writer     = ["fsync"]
  cut_after  = "3s"
  mount      = ["async"]
}

# Faulty from the table's load: the writer meets the fault however fast
# it is.
test "dm_flakey" "corruption" {
  on              = partition.crash
  iterations      = 1
  fault           = ["corrupt_writes", "error_writes"]
  schedule        = ["after"]
  writer          = ["large_file"]
  after           = "0s"
  large_file_size = "16MiB"
}

# The device turns faulty long after the writer is done: no fault is
# injected, and the iteration must say so.
test "dm_flakey" "late" {
  on              = partition.crash
  iterations      = 1
  fault           = ["corrupt_writes"]
  schedule        = ["after"]
  writer          = ["large_file"]
  after           = "5m"
  large_file_size = "4MiB"
}
`

// TestReliabilityInQEMU runs power_loss through real watchdog resets and a
// host-side power cut, and dm_flakey through the kernel's device-mapper, in
// QEMU, and checks that every iteration arrives classified on both axes.
func TestReliabilityInQEMU(t *testing.T) {
	runSpecInQEMU(t, "reliability", reliabilitySpec, 25*time.Minute, "boots VMs through power cuts", checkReliability)
}

// runSpecInQEMU runs a spec's every variant in QEMU and checks each
// variant's outcome with check and its charts with the report.
func runSpecInQEMU(t *testing.T, name, specText string, limit time.Duration, why string, check func(*testing.T, *Outcome)) {
	t.Helper()
	for _, tool := range []string{"qemu-system-x86_64", "apt-get", "fakeroot"} {
		testenv.Tool(t, tool)
	}
	if testing.Short() {
		t.Skip(why)
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, name+".fsb.hcl")
	os.WriteFile(path, []byte(specText), 0o644)
	s, p := loadSpec(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	outcomes := runJob(t, ctx, testJob(t, s, p, filepath.Join(dir, "out")))
	for _, v := range p.Variants {
		t.Run(v.Name, func(t *testing.T) {
			o := outcomes[v.Name]
			if o == nil {
				t.Skip("did not complete (above)")
			}
			check(t, o)
			checkCharts(t, v.Tests, o.Results)
		})
	}
}

func checkReliability(t *testing.T, o *Outcome) {
	t.Helper()
	iters := map[string]int{}
	for _, r := range o.Summary.Results {
		if r.Recipe == "fsbench" {
			continue
		}
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s %s/%s #%d: %s %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
			continue
		}
		iters[r.Name+"/"+r.Case]++
		cons, data := r.Attrs["consistency"], r.Attrs["data"]
		if cons == "" || data == "" {
			t.Errorf("%s/%s #%d: not classified: %v", r.Name, r.Case, r.Iteration, r.Attrs)
		}
		if f := r.Attrs["fsck"]; f != "clean" && f != "errors" {
			t.Errorf("%s/%s #%d: checker %q did not run", r.Name, r.Case, r.Iteration, r.Attrs["checker"])
		}
		switch r.Recipe {
		case "power_loss":
			// What the runner saw synced survives a cut on a journalled
			// or copy-on-write filesystem.
			if data == "LostSynced" || data == "Corrupt" {
				t.Errorf("%s/%s #%d: data %s: %s", r.Name, r.Case, r.Iteration, data, r.Attrs["data_problems"])
			}
			if r.Name == "watchdog" && !strings.HasPrefix(r.Attrs["reset"], "watchdog reset (i6300ESB") {
				t.Errorf("reset %q", r.Attrs["reset"])
			}
		case "dm_flakey":
			if !strings.HasPrefix(r.Attrs["table"], "flakey ") {
				t.Errorf("table %q", r.Attrs["table"])
			}
			faulty := value(r, "faulty_ios")
			switch late := r.Name == "late"; {
			case late && (cons != "NoFault" || data != "NoFault" || faulty != 0 || r.Attrs["no_fault"] == ""):
				t.Errorf("%s/%s: a fault window after the writer gives %s/%s with %v faulty I/O (%q), want NoFault",
					r.Name, r.Case, cons, data, faulty, r.Attrs["no_fault"])
			case !late && (cons == "NoFault" || faulty <= 0):
				t.Errorf("%s/%s: %s/%s with %v faulty I/O (%s): the fault met no I/O; %v", r.Name, r.Case, cons, data, faulty, r.Attrs["no_fault"], r.Metrics)
			}
		}
		t.Logf("%s %s/%s #%d: %s, %s (faulty I/O %v, writer done %.2f s) %s %s", r.Recipe, r.Name, r.Case, r.Iteration, cons, data,
			value(r, "faulty_ios"), value(r, "writer_done"), r.Attrs["kernel_log"], r.Attrs["data_problems"])
	}
	want := map[string]int{"watchdog/async-small_files": 2, "watchdog/sync-small_files": 2, "host/async-fsync": 1,
		"corruption/corrupt_writes-after-large_file": 1, "corruption/error_writes-after-large_file": 1,
		"late/corrupt_writes-after-large_file": 1}
	for k, n := range want {
		if iters[k] != n {
			t.Errorf("%d results for %s, want %d (got %v)", iters[k], k, n, iters)
		}
	}
	if !o.Summary.Complete || len(o.Summary.Missing()) > 0 {
		t.Errorf("complete %v, missing %v", o.Summary.Complete, o.Summary.Missing())
	}
}
