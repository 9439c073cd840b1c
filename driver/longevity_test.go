package driver

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/blocktrace"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// longevitySpec writes with fio, fills for mount_time and replays an hour
// of a device's life on ext4 and nilfs2, between two readings of what the
// storage says about itself: every writing case counts its bytes, QEMU's
// counters check the guest's, and the endurance case records its trace.
const longevitySpec = `
matrix "fs" {
  values = ["ext4", "nilfs2"]
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"

  endurance {
    capacity  = "8GiB"
    pe_cycles = 3000
  }
}

image "disk" {
  table = "gpt"
  size  = "520MiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  partition "bench" {
    grow = true
    filesystem {
      type       = matrix.fs
      label      = "bench"
      mountpoint = "/mnt/bench"
      mount      = ["noatime"]
      geometry {
        erase_block = "4MiB"
        page_size   = "16KiB"
      }
    }
  }
}

test "flash_info" "before" {
  on        = partition.bench
  probe_max = "4MiB"
}

test "fio" "seq" {
  on      = partition.bench
  rw      = ["write"]
  bs      = ["1MiB"]
  direct  = [true]
  size    = "16MiB"
  nrfiles = 2
}

test "mount_time" "bench" {
  on           = partition.bench
  fill_percent = 20
  iterations   = 2
}

test "endurance" "hour" {
  on                   = partition.bench
  duration             = "1h"
  log_fsync_interval   = "30s"
  transactions_per_day = 2880
}

test "flash_info" "after" {
  on    = partition.bench
  probe = false
}
`

// TestLongevityInQEMU runs longevitySpec: the guest's write accounting
// against QEMU's counters (within 1%), who submitted the writes, the
// endurance day's figures and trace, nilfs2's cleaner, and a virtio disk
// that states no flash geometry and shows the probe none.
func TestLongevityInQEMU(t *testing.T) {
	testenv.Tool(t, "mkfs.nilfs2")
	runSpecInQEMU(t, "longevity", longevitySpec, 15*time.Minute, "boots VMs that write and count", checkLongevity)
}

func checkLongevity(t *testing.T, o *Outcome) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range o.Summary.Results {
		if r.Recipe == "fsbench" {
			continue
		}
		id := r.Recipe + "." + r.Name + "/" + r.Case
		seen[r.Recipe] = true
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s: %s %s", id, r.Status, r.Error)
			continue
		}
		switch r.Recipe {
		case "fio", "mount_time", "endurance":
			checkAccounting(t, id, r)
		case "flash_info":
			checkFlashInfo(t, id, r)
		}
		if r.Recipe == "endurance" {
			checkEndurance(t, id, r)
		}
		if o.Variant == "nilfs2" && r.Recipe != "flash_info" && !strings.Contains(r.Attrs["cleaner"], "nilfs_cleanerd") {
			t.Errorf("%s: nilfs2 wrote without its cleaner: %q", id, r.Attrs["cleaner"])
		}
		// The replay outruns the clock: its cleaner protects an hour of
		// the device's time, scaled to the replay's speed.
		if o.Variant == "nilfs2" && r.Recipe == "endurance" {
			t.Logf("%s: replayed in %.1f s; cleaner protection: %s", id, value(r, "elapsed"), r.Attrs["cleaner_protection"])
		}
		if o.Variant == "nilfs2" && r.Recipe == "endurance" && value(r, "elapsed") >= 2 &&
			!strings.Contains(r.Attrs["cleaner_protection"], "nilfs_cleanerd -p ") {
			t.Errorf("%s: the cleaner's protection period was not scaled to the replay: %q", id, r.Attrs["cleaner_protection"])
		}
	}
	for _, rec := range []string{"flash_info", "fio", "mount_time", "endurance"} {
		if !seen[rec] {
			t.Errorf("no %s result", rec)
		}
	}
}

// checkAccounting: the workload wrote, the device wrote, QEMU saw what
// the guest says the disk wrote, and the writers add up to the device.
func checkAccounting(t *testing.T, id string, r resultframe.Result) {
	t.Helper()
	dev, disk, host := value(r, "device_write_bytes"), value(r, "disk_write_bytes"), value(r, "host_write_bytes")
	t.Logf("%s: workload %.0f, device %.0f, disk %.0f, host %.0f bytes, WA %.3f, %s; %s", id, value(r, "workload_write_bytes"),
		dev, disk, host, value(r, "write_amplification"), r.Attrs["io_writers"], r.Attrs["host_counters"])
	if r.Recipe != "mount_time" || r.Iteration == 1 { // mount_time writes only in its first iteration, the fill
		// A filesystem writes at least what it was asked, and no more
		// than ten times that for these workloads.
		if wa := value(r, "write_amplification"); wa < 0.99 || wa > 10 || dev <= 0 {
			t.Errorf("%s: write amplification %v: %v", id, wa, r.Metrics)
		}
	} else if !strings.HasPrefix(r.Attrs["write_amplification"], "not computed") {
		t.Errorf("%s: a mount without writes has a write amplification: %v", id, r.Attrs)
	}
	if !strings.HasPrefix(r.Attrs["host_counters"], "QEMU query-blockstats") {
		t.Fatalf("%s: host counters %q", id, r.Attrs["host_counters"])
	}
	if disk < dev {
		t.Errorf("%s: the disk wrote %.0f bytes, less than its partition's %.0f", id, disk, dev)
	}
	if d := value(r, "host_guest_difference"); host > 0 && math.Abs(d) > 1 {
		t.Errorf("%s: QEMU counted %.0f bytes written, the guest %.0f: %.2f%% apart", id, host, disk, d)
	}
	if strings.HasPrefix(r.Attrs["io_writers"], "not available") {
		t.Errorf("%s: io_writers %q", id, r.Attrs["io_writers"])
	}
}

// checkEndurance: figures a day, and a trace whose writes are the
// partition's.
func checkEndurance(t *testing.T, id string, r resultframe.Result) {
	t.Helper()
	share := value(r, "day_fraction")
	if math.Abs(share-1.0/24) > 1e-9 {
		t.Errorf("%s: day_fraction %v, want 1/24", id, share)
	}
	if got, want := value(r, "device_bytes_per_day"), value(r, "device_write_bytes")/share; math.Abs(got-want) > 1 {
		t.Errorf("%s: device_bytes_per_day %v, want %v", id, got, want)
	}
	if r.Attrs["block_trace_lost"] != "0" {
		t.Fatalf("%s: the trace lost %q", id, r.Attrs["block_trace_lost"])
	}
	recs, err := blocktrace.DecodeString(r.Attrs["block_trace"])
	if err != nil {
		t.Fatalf("%s: the trace: %v", id, err)
	}
	tot := blocktrace.Sum(recs)
	dev := value(r, "device_write_bytes")
	t.Logf("%s: %d records, %d bytes written, %d flushes, %d FUA; the device counted %.0f bytes", id, tot.Records, tot.BytesWritten, tot.Flushes, tot.FUAWrites, dev)
	// The trace covers the day's writes and their sync; the counters
	// the iteration around it, a little more.
	if float64(tot.BytesWritten) > dev || float64(tot.BytesWritten) < 0.8*dev || tot.Flushes == 0 {
		t.Errorf("%s: the trace wrote %d bytes with %d flushes; the device %.0f", id, tot.BytesWritten, tot.Flushes, dev)
	}
	size, _ := strconv.ParseInt(r.Attrs["partition_bytes"], 10, 64)
	for _, rec := range recs {
		if rec.End()*512 > uint64(size) {
			t.Fatalf("%s: %v lies beyond the partition's %d bytes", id, rec, size)
		}
	}
	if r.Attrs["flash_pe_cycles"] != "3000" || r.Attrs["flash_erase_block"] != "4194304" || r.Attrs["flash_page_size"] != "16384" {
		t.Errorf("%s: the flash model's settings: %v", id, r.Attrs)
	}
}

// checkFlashInfo: a virtio disk is no MMC device and has no erase
// geometry; the probe, on a disk backed by the host's page cache, finds
// no boundary and claims none.
func checkFlashInfo(t *testing.T, id string, r resultframe.Result) {
	t.Helper()
	if !strings.HasPrefix(r.Attrs["ext_csd"], "not available") {
		t.Errorf("%s: ext_csd on a virtio disk: %q", id, r.Attrs["ext_csd"])
	}
	if !strings.HasPrefix(r.Attrs["stated_erase_unit"], "not available") {
		t.Errorf("%s: a virtio disk states an erase unit: %v", id, r.Attrs["stated_erase_unit"])
	}
	if value(r, "spec_erase_block") != 4<<20 {
		t.Errorf("%s: spec_erase_block %v", id, value(r, "spec_erase_block"))
	}
	for _, m := range r.Metrics {
		if m.Name == "probe_erase_block" {
			t.Errorf("%s: the probe claims a %v-byte erase block on a virtio disk: %s", id, m.Value, r.Attrs["probe"])
		}
	}
	if r.Name == "before" && !strings.HasPrefix(r.Attrs["probe"], "no boundary found") {
		t.Errorf("%s: probe %q", id, r.Attrs["probe"])
	}
}

// sdSpec reads what QEMU's emulated SD card says about itself.
const sdSpec = `
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "mmcblk0"
}

image "disk" {
  table = "gpt"
  size  = "256MiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }
}

test "flash_info" "card" {
  on        = partition.rootfs
  probe_max = "4MiB"
}
`

// TestFlashInfoOnQEMUSDCard: on QEMU's SD card (an SDHCI controller and
// sd-card), flash_info reads the card's registers from sysfs and decodes
// them (an SD card, its capacity from the CSD), says why an eMMC's EXT_CSD
// is not there, and the probe, on an emulated card with no erase
// behaviour, claims no geometry.
func TestFlashInfoOnQEMUSDCard(t *testing.T) {
	testenv.Tool(t, "qemu-system-x86_64")
	if testing.Short() {
		t.Skip("boots a VM")
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sd.fsb.hcl")
	os.WriteFile(path, []byte(sdSpec), 0o644)
	s, p := loadSpec(t, path)
	job := testJob(t, s, p, filepath.Join(dir, "out"))
	job.QEMU.Disk = "sd"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	o := runJob(t, ctx, job)[p.Variants[0].Name]
	if o == nil {
		t.Fatal("the variant did not complete")
	}
	for _, r := range o.Summary.Results {
		if r.Recipe != "flash_info" {
			continue
		}
		if r.Status != resultframe.StatusOK {
			t.Fatalf("flash_info: %s %s", r.Status, r.Error)
		}
		t.Logf("card %q, csd %q, capacity %v (%s), ssr_au_size %q, stated %q, probe %q", r.Attrs["card_type"], r.Attrs["csd_structure"],
			value(r, "csd_capacity"), r.Attrs["csd_capacity.source"], r.Attrs["ssr_au_size"], r.Attrs["stated_erase_unit"], r.Attrs["probe"])
		if r.Attrs["card_type"] != "SD" {
			t.Errorf("card_type %q, want SD", r.Attrs["card_type"])
		}
		// The card is the disk image: 256MiB.
		if c := value(r, "csd_capacity"); c != 256<<20 {
			t.Errorf("csd_capacity %v, want the image's 256MiB", c)
		}
		if !strings.HasPrefix(r.Attrs["ext_csd"], "not available") {
			t.Errorf("an SD card with an EXT_CSD: %q", r.Attrs["ext_csd"])
		}
		for _, m := range r.Metrics {
			if m.Name == "probe_erase_block" {
				t.Errorf("the probe claims a %v-byte erase block on an emulated card: %s", m.Value, r.Attrs["probe"])
			}
		}
		if !strings.HasPrefix(r.Attrs["probe"], "no boundary found") {
			t.Errorf("probe %q", r.Attrs["probe"])
		}
		for k, v := range r.Attrs {
			if strings.HasPrefix(k, "serial") && !strings.HasPrefix(v, "not ") {
				t.Errorf("the card's serial is reported: %s = %q", k, v)
			}
		}
		return
	}
	t.Error("no flash_info result")
}
