package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// crashModelsSpec records one fsync workload on ext4 (data=ordered, with
// barriers) and checks it under each device model: the five tests record
// the same workload on the same partitions, so they check one recording.
// ext4 with metadata_csum checksums its journal (v3); without it and
// without journal_checksum it does not.
const crashModelsSpec = `
matrix "journal" {
  values = {
    csum   = []
    nocsum = ["^metadata_csum"]
  }
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "480MiB"

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
    size = "160MiB"
    filesystem {
      type       = "ext4"
      label      = "crash"
      mountpoint = "/mnt/crash"
      features   = matrix.journal
      mount      = ["noatime", "data=ordered"]
    }
  }

  partition "crashlog" {
    grow = true
  }
}

test "crash_states" "prefix" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 8
}

test "crash_states" "kzero" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 8
  device     = "reorder"
  drop       = 0
  samples    = 0
}

test "crash_states" "honest" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 8
  device     = "reorder"
  drop       = 1
  samples    = 2
  max_states = 70
}

test "crash_states" "lying" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 8
  device     = "reorder"
  flush      = "ignored"
  drop       = 1
  samples    = 2
  max_states = 40
  fsck       = false
}

test "crash_states" "torn" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 8
  device     = "torn"
  flush      = "ignored"
  samples    = 0
  max_states = 70
}
`

// TestCrashDeviceModelsInQEMU: the device models on one recording of
// ext4 in QEMU. An honest device that reorders what a flush has not made
// durable loses no synced data; one that ignores flushes does, within
// the budget; reordering that drops nothing gives exactly the prefix
// states; and a torn write inside a committed journal transaction is
// refused at mount by the journal's checksum, while without one it is
// replayed and harms the filesystem or its data. Every model checks the
// recording of the first test, in the directory its workload wrote.
func TestCrashDeviceModelsInQEMU(t *testing.T) {
	runSpecInQEMU(t, "models", crashModelsSpec, 20*time.Minute, "replays write logs in VMs", func(t *testing.T, o *Outcome) {
		t.Helper()
		res := map[string]resultframe.Result{}
		for _, r := range o.Summary.Results {
			if r.Recipe != "crash_states" {
				continue
			}
			if r.Status != resultframe.StatusOK {
				t.Fatalf("%s/%s: %s %s", r.Name, r.Case, r.Status, r.Error)
			}
			res[r.Name] = r
			t.Logf("%s: %v states (%v possible), %v checked, refused %v; consistency %v/%v/%v/%v, data %v/%v/%v/%v; %s; %s; first bad %s: %s %s",
				r.Name, value(r, "states"), value(r, "states_possible"), value(r, "states_checked"), value(r, "states_mount_refused"),
				value(r, "consistency.Clean"), value(r, "consistency.AutoFix"), value(r, "consistency.Fsck"), value(r, "consistency.Fatal"),
				value(r, "data.Intact"), value(r, "data.LostUnsynced"), value(r, "data.LostSynced"), value(r, "data.Corrupt"),
				r.Attrs["recording"], r.Attrs["sampling"], r.Attrs["first_bad_model"], r.Attrs["first_bad_mount"], r.Attrs["first_bad_data"])
			t.Logf("%s: first refused %s: %s", r.Name, r.Attrs["first_refused_model"], r.Attrs["first_refused_mount"])
		}
		if len(res) != 5 {
			t.Fatalf("results of %d tests, want 5", len(res))
		}
		checkSameStates(t, res["prefix"], res["kzero"])
		for _, name := range []string{"kzero", "honest", "lying", "torn"} {
			if !strings.HasPrefix(res[name].Attrs["recording"], "shared with crash_states.prefix/") {
				t.Errorf("%s checked another recording: %q", name, res[name].Attrs["recording"])
			}
		}
		honest := res["honest"]
		if value(honest, "states_checked") <= value(res["prefix"], "states_checked") {
			t.Errorf("honest reordering checked no state beyond the prefixes")
		}
		if bad := value(honest, "data.LostSynced") + value(honest, "data.Corrupt"); bad > 0 {
			t.Errorf("ext4 with barriers on an honest device lost synced data in %v states: %s (%s)", bad, honest.Attrs["first_bad_data"], honest.Attrs["first_bad_model"])
		}
		if lying := res["lying"]; value(lying, "data.LostSynced") == 0 {
			t.Errorf("a device that ignores flushes lost no synced data in %v states", value(lying, "states_checked"))
		}
		torn := res["torn"]
		switch refused := value(torn, "states_mount_refused"); o.Variant {
		case "csum":
			if refused == 0 || !strings.Contains(torn.Attrs["first_refused_mount"], "error loading journal") {
				t.Errorf("the journal's checksum refused no torn state (%v refused; the first: %q)", refused, torn.Attrs["first_refused_mount"])
			}
		case "nocsum":
			// Without checksums a torn journal block is replayed: the
			// mount may fail later, on what the replay wrote, never on
			// loading the journal.
			if m := torn.Attrs["first_refused_mount"]; strings.Contains(m, "journal") {
				t.Errorf("without journal checksums the mount refused a torn state at its journal: %s", m)
			}
			if value(torn, "consistency.Fsck")+value(torn, "data.LostSynced")+value(torn, "data.Corrupt") == 0 {
				t.Errorf("without journal checksums no torn state did harm the checker or the data check saw")
			}
		}
	})
}

// checkSameStates: the two campaigns checked the same states with the
// same classes.
func checkSameStates(t *testing.T, a, b resultframe.Result) {
	t.Helper()
	for _, m := range a.Metrics {
		if m.Name == "states" || m.Name == "states_checked" || strings.HasPrefix(m.Name, "consistency.") || strings.HasPrefix(m.Name, "data.") {
			if got := value(b, m.Name); got != m.Value {
				t.Errorf("%s: %s %v, %s %v", m.Name, a.Name, m.Value, b.Name, got)
			}
		}
	}
}
