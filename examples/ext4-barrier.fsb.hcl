# The "Ext4 write barrier" slides (S. Roy):
# ext4 mounted with and without write barriers on an Android set-top box,
# measured by the latency of fsync (dex2oat's fdatasync, slide 7; SQLite's
# fsync, slide 9) and by Androbench's SQLite transactions per second
# (slides 8 and 10), on an SSHD (slides 7-8) and on eMMC (slides 9-10).
# Slide numbers below are the deck's.
#
# One variant per mount mode: barrier and nobarrier. The defaults measure
# the eMMC of slides 9-10 on a board; -var board_storage=sda measures the
# disk of slides 7-8. With -var target=qemu the same plan runs in QEMU
# (x86_64, virtio disk), where each flush the guest sends becomes an
# fdatasync of the image file on the host (QEMU's default cache=writeback):
# the comparison then shows the host disk's flush cost, not a flash chip's.
#
# sqlite_tps runs the image's sqlite3; fsbench's busybox userland carries
# it from Debian. An image without it records the SQLite cases as skipped,
# with the reason.

variable "target" {
  type        = string
  default     = "board"
  description = "board: the device described by the board_ variables; qemu: QEMU's x86_64 machine with a virtio disk."

  validation {
    condition     = contains(["board", "qemu"], var.target)
    error_message = "target is \"board\" or \"qemu\"."
  }
}

# The slides do not name the set-top box; these describe a typical ARM one.
variable "board_arch" {
  type    = string
  default = "arm"
}

variable "board_console" {
  type    = string
  default = "ttyS0,115200n8"
}

variable "board_storage" {
  type        = string
  default     = "mmcblk0"
  description = "The storage measured: the eMMC (slides 9-10) by default; sda for the SSHD of slides 7-8."
}

variable "disk_size" {
  type        = string
  default     = "4GiB"
  description = "The image written to the storage (the slides give no size)."
}

variable "data_size" {
  type        = string
  default     = "2GiB"
  description = "The data partition the tests write on, Android's /data where dex2oat and SQLite write (slide 5)."
}

variable "fsync_count" {
  type        = number
  default     = 1000
  description = "write+sync calls measured per case (the slides give only the mean latency); p99.9 needs 1000 at least."
}

variable "fsync_write_size" {
  type        = string
  default     = "4KiB"
  description = "Bytes written before each sync: one 4KiB SQLite page (slide 9); the slides give no size."
}

variable "settle_max" {
  type        = number
  default     = 10
  description = "Most runs of each fsync and SQLite case: each repeats until the 95% interval of its mean is within 5% (the slides give means only), at least three times when allowed."

  validation {
    condition     = var.settle_max >= 2
    error_message = "Comparing barrier with nobarrier needs at least two runs of each case."
  }
}

variable "sqlite_transactions" {
  type        = number
  default     = 1000
  description = "Transactions per SQLite case (Androbench's count is not on the slides)."
}

locals {
  boards = {
    board = { arch = var.board_arch, console = var.board_console, storage = var.board_storage }
    qemu  = { arch = "x86_64", console = "ttyS0,115200n8", storage = "vda" }
  }
  board = local.boards[var.target]
}

# Slide 6: "Disabling write barrier allows disk to reorder cache-to-disk
# writes"; slides 7-10 set barrier against nobarrier.
matrix "barrier" {
  values = ["barrier", "nobarrier"]
}

# On QEMU, fsbench run boots Debian's kernel into this disk. On the set-top
# box, its own bootloader and kernel start the image: this spec makes the
# disk's partitions and root filesystem, and the build system (Buildroot's
# post-image script, Yocto's fsbench-image class) flashes them with the
# box's boot chain.
board "set-top-box" {
  arch    = local.board.arch
  console = local.board.console
  storage = local.board.storage
  init    = "busybox"
}

image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "ext4"
      label = "rootfs"
      mount = ["noatime"]
    }

    contents {
      userland = "busybox"
    }
  }

  # Slides 2-3: ext4 in its default data=ordered mode, which journals
  # metadata only; the variant's barrier setting is the only difference.
  partition "data" {
    size = var.data_size

    filesystem {
      type       = "ext4"
      label      = "data"
      mount      = ["data=ordered", matrix.barrier]
      mountpoint = "/data"
    }
  }
}

# Slides 5 and 7: dex2oat writes its output files and calls fdatasync at
# regular intervals ("Dex2oat Fsync latency": 300ms with barrier, 105ms
# without, on the SSHD).
test "fsync_latency" "dex2oat" {
  on         = partition.data
  call       = ["fdatasync"]
  pattern    = "append"
  write_size = var.fsync_write_size
  count      = var.fsync_count

  settle {
    ci  = "5%"
    min = min(3, var.settle_max)
    max = var.settle_max
  }
}

# Slide 9: "SQLite Fsync latency" (860us with barrier, 361us without, on
# eMMC): a database rewrites its pages in place.
test "fsync_latency" "sqlite" {
  on         = partition.data
  call       = ["fsync"]
  pattern    = "overwrite"
  write_size = var.fsync_write_size
  count      = var.fsync_count

  settle {
    ci  = "5%"
    min = min(3, var.settle_max)
    max = var.settle_max
  }
}

# Slides 8 and 10: Androbench's SQLite insert, update and delete
# transactions per second, with Android's journal_mode PERSIST and
# synchronous FULL (the recipe's defaults).
test "sqlite_tps" "androbench" {
  on           = partition.data
  transactions = var.sqlite_transactions

  settle {
    ci  = "5%"
    min = min(3, var.settle_max)
    max = var.settle_max
  }
}
