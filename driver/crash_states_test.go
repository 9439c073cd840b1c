package driver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/driver/crashstate"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// crashSpec is a small crash_states campaign on ext4 and btrfs: the log,
// SQLite and rename workloads checked at every flush and FUA write, and the
// two negative controls (a workload that counts data durable without
// fsync, and a replay without one synced write), which must be caught.
const crashSpec = `
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
  size  = "560MiB"

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
    size = "200MiB"
    filesystem {
      type       = matrix.fs
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }

  partition "crashlog" {
    grow = true
  }
}

test "crash_states" "unsynced" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 6
  fsync      = "none"
  at_marks   = true
  fsck       = false
}

test "crash_states" "dropped" {
  on                = partition.crash
  log               = partition.crashlog
  workload          = ["small_files"]
  operations        = 4
  file_size         = "64KiB"
  drop_synced_write = true
  fsck              = false
}

# The power goes once in each campaign's replay; each resumes after the
# states it had checked.
test "crash_states" "states" {
  on              = partition.crash
  log             = partition.crashlog
  workload        = ["fsync", "sqlite", "rename"]
  operations      = 12
  file_size       = "8KiB"
  interrupt_after = 7
}
`

// TestCrashStatesInQEMU records the workloads with the kernel's
// dm-log-writes in QEMU and checks their states in dm-snapshots: every
// state of a sound workload is consistent with its data intact, both
// negative controls find bad states, a campaign whose power is cut
// resumes where it stopped, and the host rebuilds a state from the log.
func TestCrashStatesInQEMU(t *testing.T) {
	testenv.Tool(t, "mkfs.btrfs")
	runSpecInQEMU(t, "crash", crashSpec, 20*time.Minute, "replays write logs in VMs", checkCrashStates)
}

func checkCrashStates(t *testing.T, o *Outcome) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range o.Summary.Results {
		if r.Recipe != "crash_states" {
			continue
		}
		id := r.Name + "/" + r.Case
		seen[id] = true
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s: %s %s", id, r.Status, r.Error)
			continue
		}
		states, checked := value(r, "states"), value(r, "states_checked")
		var cons, data float64
		for _, m := range r.Metrics {
			switch {
			case strings.HasPrefix(m.Name, "consistency."):
				cons += m.Value
			case strings.HasPrefix(m.Name, "data."):
				data += m.Value
			}
		}
		t.Logf("%s: %v states, %v checked at %.0f/min; %v", id, states, checked, value(r, "states_per_minute"), r.Metrics)
		if checked < 3 || checked != states || cons != checked || data != checked {
			t.Errorf("%s: %v states, %v checked, %v and %v classified", id, states, checked, cons, data)
		}
		bad := value(r, "data.LostSynced") + value(r, "data.Corrupt")
		switch r.Name {
		case "states":
			if value(r, "resumed") != 1 || value(r, "states_reused") != 7 {
				t.Errorf("%s: resumed %v times with %v states reused, want once with 7", id, value(r, "resumed"), value(r, "states_reused"))
			}
			if bad > 0 || value(r, "consistency.Fsck")+value(r, "consistency.Fatal") > 0 {
				t.Errorf("%s: a sound workload has bad states: first %s (%s): %s %s %s", id, r.Attrs["first_bad_state"],
					r.Attrs["first_bad_class"], r.Attrs["first_bad_mount"], r.Attrs["first_bad_checker"], r.Attrs["first_bad_data"])
			}
		case "unsynced":
			if value(r, "data.LostSynced") == 0 {
				t.Errorf("%s: the negative control found no LostSynced state", id)
			}
		case "dropped":
			// Where the dropped block was: zeros (LostSynced), or a read
			// error where the filesystem checksums its data (btrfs).
			if bad == 0 {
				t.Errorf("%s: the negative control found no LostSynced or Corrupt state", id)
			}
		}
		if r.Name != "states" {
			if r.Attrs["first_bad_state"] == "" || r.Attrs["first_bad_entry"] == "" || r.Attrs["first_bad_data"] == "" {
				t.Errorf("%s: the first bad state is not named: %v", id, r.Attrs)
			}
		}
	}
	for _, id := range []string{"states/fsync", "states/sqlite", "states/rename", "unsynced/fsync", "dropped/small_files"} {
		if !seen[id] {
			t.Errorf("no result for %s", id)
		}
	}
	checkExport(t, o)
}

// checkExport rebuilds, on the host, the last state of the last campaign
// (states/rename) from the log on the run's disk: the runner left the
// partition so, and the two must match byte for byte.
func checkExport(t *testing.T, o *Outcome) {
	t.Helper()
	disk := filepath.Join(filepath.Dir(o.Results), "disk.img")
	f, err := os.Open(disk)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	d, err := crashstate.Open(f, st.Size(), 512, "crash", "crashlog")
	if err != nil {
		t.Fatal(err)
	}
	states := d.States()
	if len(states) < 10 || !strings.HasPrefix(states[len(states)-1].LastMark, "fsb:v:config:") {
		t.Errorf("%d states, the last after mark %q", len(states), states[len(states)-1].LastMark)
	}
	out := filepath.Join(t.TempDir(), "state.img")
	if err := d.Export(out, strconv.Itoa(len(d.Log.Entries))); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, d.Partition.Size)
	if _, err := f.ReadAt(want, d.Partition.Start); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the exported state differs from the partition the runner left")
	}
}

// crashOrderSpec is the rename pattern of software that fsyncs the
// directory after a rename but never the new file. ext4 orders the file's
// data before the rename with auto_da_alloc, its default, and does not
// with noauto_da_alloc, which leaves crash states with an empty config.
// With dioread_nolock, ext4's default since Linux 5.6, buffered writeback
// allocates unwritten extents and converts them in a later transaction,
// so a state can still hold the renamed config with its extent
// unwritten, which reads as zeros; dioread_lock closes that window.
const crashOrderSpec = `
matrix "mount" {
  values = {
    ordered     = ["noatime", "dioread_lock"]
    noautoalloc = ["noatime", "dioread_lock", "noauto_da_alloc"]
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
      mount      = matrix.mount
    }
  }

  partition "crashlog" {
    grow = true
  }
}

test "crash_states" "order" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["rename"]
  operations = 8
  file_size  = "8KiB"
  fsync      = "dir"
  fsck       = false
}
`

// TestCrashStatesOrderingInQEMU is the negative control of a mount mode:
// the same workload is Intact in every state with ext4's default and
// leaves a config that is not a whole version (Corrupt) with
// noauto_da_alloc.
func TestCrashStatesOrderingInQEMU(t *testing.T) {
	runSpecInQEMU(t, "order", crashOrderSpec, 15*time.Minute, "replays write logs in VMs", func(t *testing.T, o *Outcome) {
		t.Helper()
		var r *resultframe.Result
		for i := range o.Summary.Results {
			if o.Summary.Results[i].Recipe == "crash_states" {
				r = &o.Summary.Results[i]
			}
		}
		if r == nil || r.Status != resultframe.StatusOK {
			t.Fatalf("no crash_states result: %+v", r)
		}
		t.Logf("%s: %v states, first bad %s %s", o.Variant, value(*r, "states_checked"), r.Attrs["first_bad_state"], r.Attrs["first_bad_data"])
		corrupt, intact := value(*r, "data.Corrupt"), value(*r, "data.Intact")
		switch o.Variant {
		case "ordered":
			if intact != value(*r, "states_checked") {
				t.Errorf("auto_da_alloc: %v of %v states Intact, want all: %s", intact, value(*r, "states_checked"), r.Attrs["first_bad_data"])
			}
		case "noautoalloc":
			if corrupt == 0 || !strings.Contains(r.Attrs["first_bad_data"], "before the new file's data") {
				t.Errorf("noauto_da_alloc: %v Corrupt states (first bad: %q), want the config torn", corrupt, r.Attrs["first_bad_data"])
			}
		}
	})
}

// crashSmallLogSpec's log partition holds the campaign by the plan's
// estimate; TestCrashLogFillsOnTheBoard then shrinks it on the disk, as a
// board flashed with an older partition table would have it.
const crashSmallLogSpec = `
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "512MiB"

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
    size = "200MiB"
    filesystem {
      type       = "ext4"
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }

  partition "crashlog" {
    grow = true
  }
}

test "crash_states" "full" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 10
}
`

// TestCrashLogFillsOnTheBoard: a log partition that the plan found large
// enough is smaller on the board (40MiB, 8MiB of it for the log beside
// the snapshot store): the filesystem's creation alone fills the log, and
// the campaign ends with the error that says so, not with a verdict.
func TestCrashLogFillsOnTheBoard(t *testing.T) {
	for _, tool := range []string{"qemu-system-x86_64", "sgdisk", "fakeroot"} {
		testenv.Tool(t, tool)
	}
	if testing.Short() {
		t.Skip("boots a VM")
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "small-log.fsb.hcl")
	os.WriteFile(path, []byte(crashSmallLogSpec), 0o644)
	s, p := loadSpec(t, path)
	job := testJob(t, s, p, filepath.Join(dir, "out"))
	v := p.Variants[0]
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	release, err := take(ctx, vmSlots)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: job.OutDir, SpecDir: job.SpecDir, Epoch: job.Epoch,
		Jobs: 1, Log: job.Log, Runner: job.Runner, CacheDir: job.CacheDir}); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(job.OutDir, v.Name, "disk.img")
	info, err := exec.Command("sgdisk", "-i", "3", img).CombinedOutput()
	if err != nil {
		t.Fatalf("sgdisk -i 3: %v\n%s", err, info)
	}
	first, guid := "", ""
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "First sector: "); ok {
			first = strings.Fields(v)[0]
		}
		if v, ok := strings.CutPrefix(line, "Partition unique GUID: "); ok {
			guid = strings.TrimSpace(v)
		}
	}
	if out, err := exec.Command("sgdisk", "-d", "3", "-n", "3:"+first+":+40M", "-c", "3:crashlog", "-u", "3:"+guid, img).CombinedOutput(); err != nil {
		t.Fatalf("shrinking the log partition: %v\n%s", err, out)
	}
	o, err := RunQEMU(ctx, Variant{Name: v.Name, Dir: filepath.Join(job.OutDir, v.Name), Runner: job.Runner, Bootargs: v.Bootargs},
		QEMU{Accel: "auto", Disk: "virtio", MemoryMiB: 512, CPUs: 1, KernelCache: filepath.Join(job.CacheDir, "kernels")},
		Options{Log: job.Log})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range o.Summary.Results {
		if r.Recipe != "crash_states" {
			continue
		}
		if r.Status != resultframe.StatusFailed || !strings.Contains(r.Error, "the write log filled the log partition crashlog") {
			t.Errorf("a log partition too small on the board: %s %q", r.Status, r.Error)
		}
		return
	}
	t.Error("no crash_states result")
}
