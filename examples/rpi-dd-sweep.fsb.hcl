# The Raspberry Pi forum post "F2FS vs ext4 vs btrfs raid1 on a micro SD
# card": dd write throughput of a 48MiB
# file at block sizes from 4M down to 1k, twice each with the page cache
# dropped before every run (script sdtest-block), and 10, 50 and 100MiB
# written and read back at bs=1M (script sdtest-writezero), on ext4, f2fs
# and btrfs, on a SanDisk 16GB microSDHC Ultra class 10 card in a 512MB
# Raspberry Pi running Raspbian.
#
# The defaults reproduce the post on a Pi. The runner and the busybox
# userland are ARMv7 programs (Pi 2 and later); a Pi 1 (ARMv6) needs a
# runner built with GOARM=6 (-runner) and a root filesystem of its own
# (-var rootfs_tar=...). With -var target=qemu the same plan runs in QEMU
# (x86_64, virtio disk, 512MiB of memory like the post's Pi), and every
# size is a variable for a shorter run; docs/examples.md has the command.

variable "target" {
  type        = string
  default     = "board"
  description = "board: the Raspberry Pi of the post; qemu: QEMU's x86_64 machine with a virtio disk."

  validation {
    condition     = contains(["board", "qemu"], var.target)
    error_message = "target is \"board\" or \"qemu\"."
  }
}

variable "card_size" {
  type        = string
  default     = "14GiB"
  description = "The image written to the card: it fits the post's 16GB card (about 14.8GiB)."
}

variable "rootfs_size" {
  type        = string
  default     = "2GiB"
  description = "Raspbian's root partition (the post does not give its size)."
}

variable "block_total" {
  type        = string
  default     = "48MiB"
  description = "sdtest-block: \"48 MiB write test\"; dd's M is MiB."
}

variable "block_sizes" {
  type        = list(string)
  default     = ["4MiB", "2MiB", "1MiB", "512KiB", "4KiB", "2KiB", "1KiB"]
  description = "sdtest-block: bs=4M, 2M, 1M, 512k, 4k, 2k, 1k (dd's k is KiB)."
}

variable "passes" {
  type        = number
  default     = 2
  description = "sdtest-block: \"2x repeatition\", shown as Pass 1, Pass 2 and Average."
}

variable "file_sizes" {
  type        = list(string)
  default     = ["10MiB", "50MiB", "100MiB"]
  description = "sdtest-writezero: 10, 50 and 100MiB at bs=1M, written then read."
}

variable "rootfs_tar" {
  type        = string
  default     = ""
  description = "A root filesystem tarball (Raspbian's, say); empty for fsbench's busybox userland."
}

variable "binaries" {
  type        = string
  default     = ""
  description = "A build system's output (Buildroot's output/images, Yocto's DEPLOY_DIR_IMAGE): with it, the card boots by itself. Empty: the boot partition is left to the build system."
}

variable "dtb" {
  type        = string
  default     = "bcm2709-rpi-2-b.dtb"
  description = "The Pi's device tree in binaries (bcm2710-rpi-3-b.dtb for a Pi 3 in 32-bit mode)."
}

locals {
  # The Pi's firmware reads cmdline.txt from the FAT boot partition; its
  # serial console is the PL011 UART, and the SD card is mmcblk0.
  boards = {
    board = { arch = "arm", console = "ttyAMA0,115200", storage = "mmcblk0", bootloader = "rpi" }
    qemu  = { arch = "x86_64", console = "ttyS0,115200n8", storage = "vda", bootloader = "none" }
  }
  board = local.boards[var.target]
}

# The post's three candidates. Its btrfs was "raid1, autodefrag" over "two
# equally sized partitions" of the same card; fsbench makes one filesystem
# per partition, so the two copies are btrfs's dup profile on one
# partition instead: each block written twice to the same card, as raid1
# on one card does.
matrix "fs" {
  values = {
    ext4  = { type = "ext4", mount = [], dup = false }
    f2fs  = { type = "f2fs", mount = [], dup = false }
    btrfs = { type = "btrfs", mount = ["autodefrag"], dup = true }
  }
}

# The Pi's firmware (bootcode.bin, start*.elf, config.txt) and kernel come
# from the build system. With var.binaries, fsbench copies them onto the
# FAT partition with cmdline.txt (the variant's bootargs) and config.txt
# (the firmware's own, then the lines that load this kernel and device
# tree); without it, cmdline.txt is written beside the image for the
# build system to install.
board "raspberry-pi" {
  arch       = local.board.arch
  console    = local.board.console
  storage    = local.board.storage
  init       = "busybox"
  bootloader = local.board.bootloader

  dynamic "boot" {
    for_each = var.target == "board" && var.binaries != "" ? [var.binaries] : []
    content {
      partition  = partition.boot
      kernel     = "${boot.value}/zImage"
      dtb        = "${boot.value}/${var.dtb}"
      config_txt = ["enable_uart=1"]
    }
  }
}

image "sdcard" {
  table = "mbr"
  size  = var.card_size
  align = "4MiB"

  # "Beside the boot partition": the firmware's FAT partition.
  partition "boot" {
    size     = "64MiB"
    bootable = true

    filesystem {
      type  = "vfat"
      label = "boot"
    }

    dynamic "contents" {
      for_each = var.target == "board" && var.binaries != "" ? [var.binaries] : []
      content {
        dir = "${contents.value}/rpi-firmware"
      }
    }
  }

  # Raspbian's root stays ext4; the post tries f2fs outside the root
  # ("I am fighting the urge to try it out as a root fs").
  partition "rootfs" {
    size = var.rootfs_size
    root = true

    filesystem {
      type  = "ext4"
      label = "rootfs"
      mount = ["noatime"]
    }

    dynamic "contents" {
      for_each = var.rootfs_tar == "" ? [] : [var.rootfs_tar]
      content {
        tar = contents.value
      }
    }

    dynamic "contents" {
      for_each = var.rootfs_tar == "" ? ["busybox"] : []
      content {
        userland = contents.value
      }
    }
  }

  # The rest of the card, where the scripts write ./test.dat.
  partition "data" {
    grow = true

    filesystem {
      type       = matrix.fs.type
      label      = "data"
      mount      = matrix.fs.mount
      mountpoint = "/mnt/data"

      dynamic "tuning" {
        for_each = matrix.fs.dup ? [true] : []
        content {
          data_profile     = "dup"
          metadata_profile = "dup"
        }
      }
    }
  }
}

# sdtest-block: "sync; echo 1 > /proc/sys/vm/drop_caches; dd if=/dev/zero
# of=./test.dat bs=4M count=12", and so on down to bs=1k count=49152.
test "dd_sweep" "block" {
  on     = partition.data
  total  = [var.block_total]
  bs     = var.block_sizes
  passes = var.passes
}

# sdtest-writezero: "dd if=/dev/zero of=test-a bs=1M count=10", then
# "dd if=test-a of=/dev/null bs=1M count=10", caches dropped before each;
# once each.
test "dd_sweep" "writezero" {
  on     = partition.data
  total  = var.file_sizes
  bs     = ["1MiB"]
  passes = 1
  read   = true
}
