# "Analisi comparativa dei Journal File System per GNU/Linux" (an
# article in Italian): ext2, ext3, ReiserFS, JFS and XFS on a 4.5GB
# SCSI disk of a Dell Precision 220 (256MB of memory, kernel 2.4), measured
# with bonnie++ ("bonnie++ -d /mnt/rootfs -s 20 -r 4 -u 0") and postmark
# ("set number 1000", "set transactions 10000"), section "Conclusioni";
# ext3's three journaling modes (ordered, journal, writeback) are described
# in section "Filesystem ext3".
#
# One variant per candidate fsbench can build: ext2, ext3 in each data
# mode, and xfs. ReiserFS and JFS are left out: fsbench has no builder for
# them (`fsbench reference` lists btrfs, erofs, ext2, ext3, ext4, f2fs,
# nilfs2, squashfs, vfat and xfs), and Linux 6.13 removed ReiserFS.
#
# The defaults reproduce the article's runs. With -var target=qemu the same
# plan runs in QEMU (x86_64, virtio disk), and every size and count is a
# variable for a shorter run; docs/examples.md has the command.

variable "target" {
  type        = string
  default     = "board"
  description = "board: a PC like the article's, its disk as sda; qemu: QEMU's x86_64 machine with a virtio disk."

  validation {
    condition     = contains(["board", "qemu"], var.target)
    error_message = "target is \"board\" or \"qemu\"."
  }
}

variable "disk_size" {
  type        = string
  default     = "4GiB"
  description = "The test disk: a QUANTUM VIKING II of 4.5GB (\"il disco per le prove\")."
}

variable "bonnie_size" {
  type        = string
  default     = "20MiB"
  description = "bonnie++ -s 20: the file of the sequential and seek tests (\"EXT2 - 20 Mb\")."
}

variable "bonnie_ram" {
  type        = string
  default     = "4MiB"
  description = "bonnie++ -r 4: the memory bonnie++ assumes."
}

variable "bonnie_files" {
  type        = number
  default     = 16
  description = "bonnie++ -n: thousands of files for the create/read/delete tests (\"EXT2 - 16 File\")."
}

variable "postmark_files" {
  type        = number
  default     = 1000
  description = "postmark \"set number 1000\"."
}

variable "postmark_transactions" {
  type        = number
  default     = 10000
  description = "postmark \"set transactions 10000\"."
}

locals {
  # The article's disk hung off an Adaptec SCSI controller: sda to Linux
  # today (x86_64 stands in for the Pentium III).
  boards = {
    board = { storage = "sda" }
    qemu  = { storage = "vda" }
  }
}

# Section "Filesystem ext3": "ordered" writes data before the metadata
# that points at it; "journal" journals data and metadata; "writeback"
# journals metadata only and may show old data after a crash.
matrix "fs" {
  values = {
    ext2           = { type = "ext2", mount = [] }
    ext3-ordered   = { type = "ext3", mount = ["data=ordered"] }
    ext3-journal   = { type = "ext3", mount = ["data=journal"] }
    ext3-writeback = { type = "ext3", mount = ["data=writeback"] }
    xfs            = { type = "xfs", mount = [] }
  }
}

# The PC's firmware and bootloader (GRUB, as in the article) start the
# kernel; this spec makes the disk they boot. On QEMU, fsbench run boots
# Debian's kernel into it directly.
board "pc" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = local.boards[var.target].storage
  init    = "busybox"
}

image "disk" {
  table = "mbr"
  size  = var.disk_size
  align = "1MiB"

  # The article's root was JFS on a second disk; here it is ext4 on the
  # same disk, and only the test partition changes between variants.
  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "ext4"
      label = "rootfs"
    }

    contents {
      userland = "busybox"
    }
  }

  # bonnie++ -d /mnt/rootfs: the filesystem under test.
  partition "bench" {
    grow = true

    filesystem {
      type       = matrix.fs.type
      label      = "bench"
      mount      = matrix.fs.mount
      mountpoint = "/mnt/bench"
    }
  }
}

# bonnie++ (block output, rewrite, block input, seeks; sequential and
# random create/stat/delete of 16*1024 files) and postmark (1000 files
# of 500 bytes to 10kB, 10000 transactions), with the same random seed on
# every filesystem.
test "small_files" "bench" {
  on           = partition.bench
  mode         = ["bonnie", "postmark"]
  files        = var.postmark_files
  transactions = var.postmark_transactions
  bonnie_size  = var.bonnie_size
  bonnie_ram   = var.bonnie_ram
  bonnie_files = var.bonnie_files
}
