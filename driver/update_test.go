package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// updateSpec updates slot B of an A/B layout with Debian's RAUC, and
// with its SWUpdate, to an image that is the slots' ext4 filesystem with
// the root partition's userland, while an application appends to its data partition,
// and judges every flush state; the same RAUC update under the torn
// device model with the environment's two copies and with one; and a
// custom updater that flips the environment before its image reached
// slot B (the negative control), with a bootloader that counts attempts
// and with one that never spends one. x86_64 in QEMU under TCG, as CI runs it:
// the update's logic is the same on an ARM board, whose U-Boot reads the
// same environment. The host then boots every state judged Fallback or
// Bricked, every state with a copy whose CRC fails, and a sample of the
// others, through Debian's U-Boot for QEMU's x86 machine.
const updateSpec = `
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "1216MiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  partition "data" {
    size = "64MiB"
    filesystem {
      type       = "ext4"
      label      = "data"
      mountpoint = "/mnt/data"
      mount      = ["noatime", "noinit_itable"]
    }
  }

  partition "slot_a" { size = "8MiB" }
  partition "slot_b" { size = "8MiB" }

  # Root slots: the images are their ext4 filesystem, holding the root
  # partition's busybox userland.
  partition "rootfs_a" {
    size = "12MiB"
    filesystem {
      type  = "ext4"
      label = "rootfs"
    }
  }
  partition "rootfs_b" {
    size = "12MiB"
    filesystem {
      type  = "ext4"
      label = "rootfs"
    }
  }
  partition "uboot_env" { size = "1MiB" }

  # A boot partition that holds the environment as files, as U-Boot's
  # CONFIG_ENV_IS_IN_FAT keeps it.
  partition "bootfs" {
    size = "8MiB"
    filesystem {
      type  = "vfat"
      label = "BOOT"
    }
  }

  # A log partition per test: after the run, the host boots states of
  # each from the log its campaign left.
  partition "rauclog" { size = "128MiB" }
  partition "tornlog" { size = "80MiB" }
  partition "onecopylog" { size = "80MiB" }
  partition "swulog" { size = "128MiB" }
  partition "looplog" { size = "128MiB" }
  partition "fatlog" { size = "80MiB" }
  partition "fliplog" {
    grow = true
  }
}

test "update" "rauc" {
  on         = partition.data
  slot_a     = partition.rootfs_a
  slot_b     = partition.rootfs_b
  env        = partition.uboot_env
  log        = partition.rauclog
  operations = 4
}

test "update" "torn" {
  on          = partition.data
  slot_a      = partition.slot_a
  slot_b      = partition.slot_b
  env         = partition.uboot_env
  log         = partition.tornlog
  boot_sample = 1
  image_size  = "64KiB"
  operations  = 0
  device      = "torn"
  tear        = "512B"
  samples     = 0
  max_states  = 800
  fsck        = false
  # The power is cut after 200 states: the campaign resumes after them.
  interrupt_after = 200
}

test "update" "onecopy" {
  on            = partition.data
  slot_a        = partition.slot_a
  slot_b        = partition.slot_b
  env           = partition.uboot_env
  log           = partition.onecopylog
  boot_sample   = 1
  env_redundant = false
  image_size    = "64KiB"
  operations    = 0
  device        = "torn"
  tear          = "512B"
  samples       = 0
  max_states    = 800
  fsck          = false
}

# The environment as two files of a FAT boot partition, under the torn
# model.
test "update" "fatenv" {
  on          = partition.data
  slot_a      = partition.slot_a
  slot_b      = partition.slot_b
  env         = partition.bootfs
  env_file    = "uboot.env"
  log         = partition.fatlog
  boot_sample = 1
  image_size  = "64KiB"
  operations  = 0
  device      = "torn"
  tear        = "512B"
  samples     = 0
  max_states  = 800
  fsck        = false
}

# The same update by Debian's SWUpdate, from a signed image.
test "update" "swu" {
  on         = partition.data
  slot_a     = partition.rootfs_a
  slot_b     = partition.rootfs_b
  env        = partition.uboot_env
  log        = partition.swulog
  operations = 2
  updater    = "swupdate"
}

# Writes the image into slot B through the page cache (the shell keeps
# the slot open, so dd's close does not write it back), gives slot B its
# attempts, flips BOOT_ORDER and flushes the environment: the slot
# reaches the device only when the shell exits.
locals {
  flip = ["sh", "-c", <<-EOT
    exec 3<"$FSBENCH_SLOT_B"
    dd if="$FSBENCH_IMAGE" of="$FSBENCH_SLOT_B" bs=1M 2>/dev/null
    fw_setenv BOOT_B_LEFT 3
    fw_setenv BOOT_ORDER "B A"
    dd if=/dev/null of="$FSBENCH_ENV" count=0 conv=notrunc,fsync 2>/dev/null
  EOT
  ]
}

test "update" "flip" {
  on          = partition.data
  slot_a      = partition.slot_a
  slot_b      = partition.slot_b
  env         = partition.uboot_env
  log         = partition.fliplog
  boot_sample = 1
  image_size  = "4MiB"
  operations  = 2
  updater     = "custom"
  command     = local.flip
}

# The same, booted by a bootloader that never spends an attempt, its
# states replayed on the partitions themselves.
test "update" "loop" {
  on          = partition.data
  slot_a      = partition.slot_a
  slot_b      = partition.slot_b
  env         = partition.uboot_env
  log         = partition.looplog
  boot_sample = 1
  image_size  = "4MiB"
  operations  = 2
  updater     = "custom"
  bootloader_decrements = false
  # Its replay and its boot pass each on the partitions themselves.
  replay_on = "device"
  command     = local.flip
}
`

// TestUpdateInQEMU: every flush state of a real RAUC update, and of an
// SWUpdate one, is judged and none bricks the board; a torn environment
// copy is caught by its CRC and the other copy boots, while a lone copy
// torn leaves U-Boot's default environment (Fallback); an updater that
// flips the environment before the slot is written leaves states in
// which the new slot's boots fail until its attempts are spent
// (Fallback), and which a bootloader that never spends one boots
// forever (Bricked); a campaign cut by a power cut resumes; and the states
// booted for real through U-Boot land where they were judged.
func TestUpdateInQEMU(t *testing.T) {
	testenv.Tools(t, "rauc", "swupdate", "openssl", "mksquashfs")
	runSpecInQEMU(t, "update", updateSpec, 40*time.Minute, "replays A/B updates in VMs", checkUpdate)
}

func checkUpdate(t *testing.T, o *Outcome) {
	t.Helper()
	res := map[string]resultframe.Result{}
	for _, r := range o.Summary.Results {
		if r.Recipe != "update" {
			continue
		}
		if r.Status != resultframe.StatusOK {
			t.Errorf("%s/%s: %s %s", r.Name, r.Case, r.Status, r.Error)
			continue
		}
		res[r.Name] = r
		t.Logf("%s: %v states, %v checked; boot old %v new %v fallback %v bricked %v; env copy invalid %v; data intact %v lost-synced %v; "+
			"consistency clean %v autofix %v fsck %v; %v log entries, update %.1fs, replay %.1fs; last: %s; first bad %s %s: %s %s",
			r.Name, value(r, "states"), value(r, "states_checked"), value(r, "boot.OldSlot"), value(r, "boot.NewSlot"),
			value(r, "boot.Fallback"), value(r, "boot.Bricked"), value(r, "env_copy_invalid"), value(r, "data.Intact"),
			value(r, "data.LostSynced"), value(r, "consistency.Clean"), value(r, "consistency.AutoFix"), value(r, "consistency.Fsck"),
			value(r, "log_entries"), value(r, "update_time"), value(r, "replay_time"), r.Attrs["last_state_boot"],
			r.Attrs["first_bad_boot_state"], r.Attrs["first_bad_class"], r.Attrs["first_bad_boot"], r.Attrs["first_bad_data"])
		t.Logf("%s: %s; %s; replay on %s; %v skipped: %s", r.Name, r.Attrs["device"], r.Attrs["sampling"], r.Attrs["replay_on"],
			value(r, "states_skipped"), r.Attrs["skipped_states"])
	}
	if len(res) != 7 {
		t.Fatalf("results of %d tests, want 7", len(res))
	}
	for name, r := range res {
		if value(r, "states_checked") == 0 || value(r, "states_checked") != value(r, "states") {
			t.Errorf("%s: %v of %v states judged", name, value(r, "states_checked"), value(r, "states"))
		}
		// ext4 with barriers keeps what it synced on a device that
		// keeps the order; a torn journal block may be refused at mount.
		if r.Attrs["device"] == "prefix" && value(r, "data.LostSynced")+value(r, "data.Corrupt") > 0 {
			t.Errorf("%s: synced data of the data partition lost: %s", name, r.Attrs["first_bad_data"])
		}
	}
	// Every listed state booted for real through U-Boot, and landed
	// where it was judged.
	for name, r := range res {
		t.Logf("%s: %s", name, r.Attrs[RealBootNote])
		if value(r, RealBootStates) == 0 || value(r, RealBoots) == 0 {
			t.Errorf("%s: no state booted for real: %s", name, r.Attrs[RealBootNote])
		}
		if d := value(r, RealBootDisagreed); d > 0 {
			t.Errorf("%s: %v states booted elsewhere than judged; the first: %s", name, d, r.Attrs[RealBootFirstDiff])
		}
	}
	for _, name := range []string{"flip", "loop"} {
		if r := res[name]; value(r, RealBootStates) < value(r, "boot.Bricked")+value(r, "boot.Fallback") {
			t.Errorf("%s: %v of its %v bricked and fallback states booted for real", name, value(r, RealBootStates), value(r, "boot.Bricked")+value(r, "boot.Fallback"))
		}
	}
	for _, name := range []string{"rauc", "swu"} {
		r := res[name]
		if value(r, "boot.Bricked")+value(r, "boot.Fallback") > 0 {
			t.Errorf("%s's update bricked %v states: %s", r.Attrs["updater"], value(r, "boot.Bricked"), r.Attrs["first_bad_boot"])
		}
		if value(r, "boot.OldSlot") == 0 || value(r, "boot.NewSlot") == 0 {
			t.Errorf("%s's update: %v states boot the old slot, %v the new one; want both", r.Attrs["updater"], value(r, "boot.OldSlot"), value(r, "boot.NewSlot"))
		}
		if !strings.Contains(r.Attrs["last_state_boot"], "the new image") {
			t.Errorf("%s: the last state boots %q, want the new image", name, r.Attrs["last_state_boot"])
		}
	}
	torn := res["torn"]
	if value(torn, "resumed") < 1 || value(torn, "states_reused") < 200 {
		t.Errorf("torn: the campaign cut after 200 states resumed %v times, reusing %v states", value(torn, "resumed"), value(torn, "states_reused"))
	}
	if !strings.Contains(res["flip"].Attrs["first_fallback_state"], "the updater's last line") {
		t.Errorf("flip: the first fallback state does not say the updater's step: %q", res["flip"].Attrs["first_fallback_state"])
	}
	if value(torn, "boot.Bricked")+value(torn, "boot.Fallback") > 0 || value(torn, "env_copy_invalid") == 0 {
		t.Errorf("torn with two copies: %v bricked, %v fallback, %v states with a copy torn; want a torn copy caught and none bricked",
			value(torn, "boot.Bricked"), value(torn, "boot.Fallback"), value(torn, "env_copy_invalid"))
	}
	// The environment's files on a FAT partition: a torn write of one
	// file leaves the other; the update ends on the new slot.
	if fat := res["fatenv"]; value(fat, "boot.Bricked") > 0 || !strings.Contains(fat.Attrs["last_state_boot"], "the new image") ||
		!strings.Contains(fat.Attrs["env_place"], "uboot-redund.env of vfat") {
		t.Errorf("environment files on FAT: %v bricked, last state %q, environment %q", value(fat, "boot.Bricked"), fat.Attrs["last_state_boot"], fat.Attrs["env_place"])
	}
	if one := res["onecopy"]; value(one, "boot.Fallback") == 0 {
		t.Errorf("a lone environment copy torn: no state fell back to U-Boot's default environment (%v states with the copy torn)", value(one, "env_copy_invalid"))
	}
	// The control's states that boot a half-written slot B: a counting
	// bootloader falls back to A, one that never counts loops on B.
	flip, loop := res["flip"], res["loop"]
	if value(flip, "boot.Fallback") == 0 || value(flip, "boot.Bricked") > 0 {
		t.Errorf("flipping the environment before the slot is written: %v fallback, %v bricked states; want fallbacks only (first %s)",
			value(flip, "boot.Fallback"), value(flip, "boot.Bricked"), flip.Attrs["first_bad_boot"])
	}
	if value(loop, "boot.Bricked") == 0 || value(loop, "boot.Fallback") > 0 || !strings.Contains(loop.Attrs["first_bricked"], "never spends an attempt") {
		t.Errorf("a bootloader that never decrements: %v bricked, %v fallback states; want bricked only, by a boot loop (first %s)",
			value(loop, "boot.Bricked"), value(loop, "boot.Fallback"), loop.Attrs["first_bricked"])
	}
}
