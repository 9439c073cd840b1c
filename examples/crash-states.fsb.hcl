# Every crash state, not a random few: the five filesystems of the ELC
# 2015 study, each checked at every flush and FUA write of four workloads
# embedded software relies on: a log appended and fsynced, a config file
# updated by write-to-temporary and rename, SQLite transactions, and
# small files created and removed. See docs/reliability.md.
#
# crash_states records each workload's writes with the kernel's
# dm-log-writes onto the raw "crashlog" partition, then replays the log
# state by state and mounts, checks and verifies each one in a
# dm-snapshot. In QEMU (the default) it needs nothing else; on a board,
# its kernel needs DM_LOG_WRITES and DM_SNAPSHOT (fsbench kconfig).

variable "operations" {
  type        = number
  default     = 100
  description = "Operations of each workload: appends, config updates, transactions, files."
}

matrix "fs" {
  values = ["ext4", "btrfs", "f2fs", "xfs", "nilfs2"]
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "1GiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  # xfs needs 300MiB at least.
  partition "crash" {
    size = "320MiB"
    filesystem {
      type       = matrix.fs
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }

  # The write log and, at its end, the snapshot store: no filesystem.
  partition "crashlog" {
    grow = true
  }
}

test "crash_states" "workloads" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync", "rename", "sqlite", "churn"]
  operations = var.operations
  file_size  = "16KiB"
  max_states = 1000
}

# The negative control: a workload that counts its appends durable
# without fsync must be caught losing them.
test "crash_states" "control" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = 20
  fsync      = "none"
  at_marks   = true
}
