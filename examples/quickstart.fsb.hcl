# fsbench quickstart: one small disk, five candidate filesystems, and a
# short test plan that answers the three questions of a first study (how
# fast, how long the flash lasts, what a power cut leaves) in QEMU in a
# few minutes. Run it with
#   fsbench plan examples/quickstart.fsb.hcl
# and read the layout, the mkfs command lines and the kernel command line of
# each variant before anything is built. examples/thorough.fsb.hcl is the
# same study with more runs, larger sizes and more workloads.

variable "fio_size" {
  type        = string
  default     = "8MiB"
  description = "Bytes each fio case moves (the ELC2015 study used 500MB; under TCG a 4KiB random case moves about 2 MB/s)."
}

variable "fio_runtime" {
  type        = string
  default     = "2s"
  description = "Longest time one fio case runs; a case that has not moved fio_size by then stops and reports what it did (small blocks under TCG are slow)."
}

variable "settle_ci" {
  type        = string
  default     = "10%"
  description = "How close the results of a case must agree before it stops repeating: the 95% confidence interval of their mean within this share of the mean."
}

variable "settle_min" {
  type        = number
  default     = 2
  description = "Fewest runs of each case (boots, fio jobs), settled or not."

  validation {
    condition     = var.settle_min >= 2
    error_message = "A confidence interval needs at least two runs."
  }
}

variable "settle_max" {
  type        = number
  default     = 3
  description = "Most runs of each case: a case whose results still disagree then stops, and the report says it did not settle."

  validation {
    condition     = var.settle_max >= var.settle_min
    error_message = "settle_max must allow settle_min runs."
  }
}

variable "boot_max" {
  type        = number
  default     = 2
  description = "Most timed boots: every boot after the first costs a whole reboot under TCG."

  validation {
    condition     = var.boot_max >= var.settle_min
    error_message = "boot_max must allow settle_min boots."
  }
}

variable "endurance_span" {
  type        = string
  default     = "30m"
  description = "The span of a device's life each endurance run replays; the figures are scaled to a day."
}

variable "endurance_runs" {
  type        = number
  default     = 2
  description = "Endurance runs: the bytes each run sends to the device vary little, and two separate the candidates' lifetimes."
}

variable "crash_operations" {
  type        = number
  default     = 5
  description = "Config file updates whose every crash state crash_states checks."
}

# One variant per filesystem: ext4, f2fs, btrfs, xfs and nilfs2.
matrix "fs" {
  values = ["ext4", "f2fs", "btrfs", "xfs", "nilfs2"]
}

# QEMU's x86_64 machine with a virtio disk: the default virtual target.
# fsbench run boots Debian's kernel into it directly (the fastest path);
# docs/spec-language.md's boot block makes an image that boots itself
# through U-Boot instead (fsbench run -boot uboot).
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
  init    = "busybox"

  # What a typical 8GB MLC eMMC is rated for: the report's flash model
  # projects each candidate's lifetime from it (docs/longevity.md).
  endurance {
    capacity  = "7456MiB"
    pe_cycles = 3000
  }
}

image "disk" {
  table = "gpt"
  align = "1MiB"

  # The image is sparse: its size costs nothing until written. xfsprogs
  # 5.19 and later refuse filesystems below 300MiB, so the root and the
  # bench partition stay above that for every variant.
  size = "1GiB"

  partition "rootfs" {
    size = "320MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"]
    }

    # No build system here: fsbench assembles a small busybox system from
    # Debian's busybox-static, with a login prompt on the console.
    contents {
      userland = "busybox"
    }
  }

  # Where fio and the endurance day write, then the partition crash_states
  # takes over. nilfs2 frees the space of deleted files only through
  # nilfs_cleanerd, its userspace cleaner, which leaves segments younger
  # than an hour alone: what fio wrote and deleted still counts as used.
  # The quick plan writes a few tens of MiB, far from filling it.
  partition "bench" {
    size = "320MiB"

    filesystem {
      type       = matrix.fs
      label      = "bench"
      mount      = ["noatime"]
      mountpoint = "/mnt/bench"
    }
  }

  # crash_states' write log and, at its end, the snapshot store: no
  # filesystem, the log is written raw.
  partition "crashlog" {
    grow = true
  }
}

# Boots and fio cases repeat until their results agree (settle): from
# settle_min to settle_max runs (boot_max boots), and the report says
# which cases settled. Under TCG, with two guests sharing two cores,
# boots and fio cases vary by 10-50% from one run to the next; on a
# board, or under KVM, most settle. Raise settle_max and boot_max to
# settle more of them.
test "boot_time" "rootfs" {
  settle {
    ci  = var.settle_ci
    min = var.settle_min
    max = var.boot_max
  }
}

# Writes, in the two corners drives are usually compared by: sequential
# bandwidth in large blocks, random writes in 4KiB blocks. Writes are
# where the filesystems differ most; examples/thorough.fsb.hcl adds the
# reads, and examples/elc2015.fsb.hcl sweeps the whole rw x bs matrix of
# the study.
test "fio" "seq" {
  on      = partition.bench
  rw      = ["write"]
  bs      = ["4MiB"]
  direct  = [true]
  size    = var.fio_size
  runtime = var.fio_runtime
  nrfiles = 2

  settle {
    ci  = var.settle_ci
    min = var.settle_min
    max = var.settle_max
  }
}

test "fio" "rand" {
  on      = partition.bench
  rw      = ["randwrite"]
  bs      = ["4KiB"]
  direct  = [true]
  size    = var.fio_size
  runtime = var.fio_runtime
  nrfiles = 2

  settle {
    ci  = var.settle_ci
    min = var.settle_min
    max = var.settle_max
  }
}

# Half an hour of a device's life, compressed: log lines fsynced every 10 s,
# SQLite transactions, config rewrites and the share of a weekly update
# (the defaults of docs/longevity.md), scaled to a day. Every writing
# test counts what it wrote against what the device wrote; this one also
# records the device's requests for the report's flash model, which
# projects the lifetime from the board's endurance block.
test "endurance" "day" {
  on       = partition.bench
  duration = var.endurance_span

  # Each run replays the next span in the same directory, so the
  # filesystem ages a little from one to the next.
  iterations = var.endurance_runs
}

# What a power cut leaves, at every point it could land instead of a few
# random ones: the writes of a config file updated by rename (write a
# temporary file, fsync, rename) are recorded and replayed up to every
# flush, and each state is mounted, checked and its data verified
# (docs/reliability.md). It runs last: it makes the bench filesystem
# anew through its write log.
test "crash_states" "config" {
  on         = partition.bench
  log        = partition.crashlog
  workload   = ["rename"]
  operations = var.crash_operations
  max_time   = "2m"
}

# What the report's verdict weighs, and what a candidate must meet: boot
# time counts twice in the overall place, and a root filesystem that takes
# longer than 2 s from its mount to the login prompt is out, however fast
# it is otherwise; so is one that loses data it had synced in any crash
# state. The report (fsbench report -spec) names the candidates that meet
# every requirement.
verdict {
  weights = { "boot time" = 2 }

  require "boots in under 2 s" {
    metric = "boot_time.host_boot"
    max    = 2
  }

  require "keeps what it synced" {
    outcome = "crash_states.data"
    forbid  = ["LostSynced", "Corrupt"]
  }
}
