# How small is nobarrier's "small risk"? The "Ext4 write barrier" slides
# (S. Roy) measure what mounting without barriers buys: a faster fsync
# and more SQLite transactions a second, at "a small risk of filesystem
# corruption in the event of a power failure" (slide 6: without
# barriers the disk reorders cache-to-disk writes). This spec measures
# both sides on the same partition, for ext4 in its three data modes and
# f2fs with and without barriers, and btrfs and xfs beside them:
#
# - the gain: fsync_latency (a log appended and fdatasynced, a database
#   page rewritten and fsynced) and sqlite_tps;
# - the risk: crash_states records the fsync, SQLite and rename workloads
#   through dm-log-writes and checks the states a power cut can leave on
#   two devices: an honest one, whose volatile cache persists any subset
#   of the writes no flush has made durable yet (device = "reorder"), and
#   a lying one, which acknowledges flushes without honouring them
#   (flush = "ignored"), as nobarrier makes any device behave.
#
# The report's verdict ranks "crash-state robustness" (the honest device)
# and "survives a device that ignores flush" apart, with the share of
# states that lost synced data beside each place, next to "fsync latency"
# and "SQLite transactions". docs/reliability.md gives the figures of a
# run in QEMU; docs/examples.md the command.
#
# In QEMU a flush the guest sends becomes an fdatasync of the image file
# on the host, so the gain measured is the host's flush cost, not a
# flash chip's; the states, and so the risk, are the filesystem's own.

variable "operations" {
  type        = number
  default     = 20
  description = "Operations of each crash_states workload: appends, transactions, config updates."
}

variable "max_states" {
  type        = number
  default     = 60
  description = "States checked per workload and device: the prefix states first, then a sample of the others (the report says which)."
}

variable "fsync_count" {
  type        = number
  default     = 200
  description = "write+sync calls measured per fsync_latency run."
}

variable "runs" {
  type        = number
  default     = 3
  description = "Runs of each fsync_latency and sqlite_tps case."
}

# Each setup is a filesystem and the mount options it differs by.
matrix "setup" {
  values = {
    btrfs                    = { type = "btrfs", mount = [] }
    ext4-journal             = { type = "ext4", mount = ["data=journal"] }
    ext4-journal-nobarrier   = { type = "ext4", mount = ["data=journal", "nobarrier"] }
    ext4-ordered             = { type = "ext4", mount = ["data=ordered"] }
    ext4-ordered-nobarrier   = { type = "ext4", mount = ["data=ordered", "nobarrier"] }
    ext4-writeback           = { type = "ext4", mount = ["data=writeback"] }
    ext4-writeback-nobarrier = { type = "ext4", mount = ["data=writeback", "nobarrier"] }
    f2fs                     = { type = "f2fs", mount = [] }
    f2fs-nobarrier           = { type = "f2fs", mount = ["nobarrier"] }
    xfs                      = { type = "xfs", mount = [] }
  }
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
    # sqlite3 for sqlite_tps and the SQLite workload comes with it.
    contents { userland = "busybox" }
  }

  # xfs needs 300MiB at least.
  partition "data" {
    size = "320MiB"
    filesystem {
      type       = matrix.setup.type
      label      = "data"
      mountpoint = "/data"
      mount      = concat(["noatime"], matrix.setup.mount)
    }
  }

  # The write log and, at its end, the snapshot store: no filesystem.
  partition "crashlog" {
    grow = true
  }
}

# What barriers cost: a log appended and fdatasynced, a database page
# rewritten in place and fsynced (slides 7 and 9).
test "fsync_latency" "log" {
  on          = partition.data
  call        = ["fdatasync"]
  pattern     = "append"
  write_size  = "4KiB"
  count       = var.fsync_count
  percentiles = [50, 99]
  iterations  = var.runs
}

test "fsync_latency" "page" {
  on          = partition.data
  call        = ["fsync"]
  pattern     = "overwrite"
  write_size  = "4KiB"
  count       = var.fsync_count
  percentiles = [50, 99]
  iterations  = var.runs
}

# Androbench's SQLite transactions (slides 8 and 10).
test "sqlite_tps" "androbench" {
  on           = partition.data
  transactions = 200
  iterations   = var.runs
}

# What a power cut leaves, on an honest device and on one that ignores
# flushes: every subset of the unflushed writes that drops one of them,
# then random ones, within the budget. A filesystem mounted nobarrier
# sends no flush, so the crash points are also the moments the workload
# was told its data was durable (at_marks): without them it would have
# almost none.
test "crash_states" "powercut" {
  on         = partition.data
  log        = partition.crashlog
  workload   = ["fsync", "sqlite", "rename"]
  operations = var.operations
  at_marks   = true
  device     = "reorder"
  flush      = ["honoured", "ignored"]
  drop       = 1
  samples    = 4
  max_states = var.max_states
}
