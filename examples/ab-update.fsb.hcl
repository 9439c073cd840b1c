# Does the update survive the power cut? An A/B update by RAUC (Debian's,
# with its U-Boot backend through libubootenv) of root slots while an
# application fsyncs appends to its data partition, checked in every
# crash state on a device whose volatile cache reorders what no flush
# made durable, and on one that acknowledges flushes it never honours,
# as cheap cards do. The root slots and the data partition are ext4,
# f2fs or btrfs: the update's images are the slots' filesystem holding
# the root partition's userland. See docs/reliability.md ("update").
#
# Each state is judged as the board would boot it (the environment copy
# U-Boot reads, the slot RAUC's boot logic picks, that slot's bytes
# against the old and the new image) and its data partition is mounted,
# checked and read back. After the run, every state judged Fallback or
# Bricked, and a sample of the others, boots for real through U-Boot in
# QEMU and must land where it was judged.

variable "slot_size" {
  type        = string
  default     = "64MiB"
  description = "Each root slot, and the images the update writes (f2fs needs 52MiB at least)."
}

variable "operations" {
  type        = number
  default     = 16
  description = "The application's fsynced appends while the update runs."
}

variable "max_states" {
  type        = number
  default     = 300
  description = "Most states judged per case."
}

# btrfs below 109MiB needs mixed block groups.
matrix "fs" {
  values = {
    ext4  = { type = "ext4", mixed = false }
    f2fs  = { type = "f2fs", mixed = false }
    btrfs = { type = "btrfs", mixed = true }
  }
}

matrix "device" {
  values = {
    honest = "honoured"
    lying  = "ignored"
  }
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}

image "disk" {
  table = "gpt"
  size  = "1280MiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  # btrfs needs 114MiB at least.
  partition "data" {
    size = "128MiB"
    filesystem {
      type       = matrix.fs.type
      label      = "data"
      mountpoint = "/mnt/data"
      mount      = ["noatime"]
    }
  }

  # The root slots: the images are slot A's filesystem with the root
  # partition's contents and userland.
  partition "rootfs_a" {
    size = var.slot_size
    filesystem {
      type  = matrix.fs.type
      label = "rootfs"
      dynamic "tuning" {
        for_each = matrix.fs.mixed ? [true] : []
        content {
          mixed = tuning.value
        }
      }
    }
  }
  # The update writes slot A's image into it; it starts empty.
  partition "rootfs_b" { size = var.slot_size }

  # U-Boot's environment, raw: two copies of 16KiB from its start.
  partition "uboot_env" { size = "1MiB" }

  # The write log and, at its end, the snapshot store: no filesystem.
  partition "updlog" {
    grow = true
  }
}

test "update" "rauc" {
  on         = partition.data
  slot_a     = partition.rootfs_a
  slot_b     = partition.rootfs_b
  env        = partition.uboot_env
  log        = partition.updlog
  operations = var.operations
  device     = "reorder"
  flush      = matrix.device
  drop       = 1
  samples    = 4
  max_states = var.max_states
}
