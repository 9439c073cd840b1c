# The study "Filesystem considerations for embedded devices" (T. Lelong,
# Embedded Linux Conference 2015): ext4, btrfs, f2fs, xfs and
# nilfs2 on a BeagleBone Black's 4GB eMMC, each with and without
# flash-geometry tuning, measured for bandwidth (fio), CPU use, boot time,
# mount time, mkfs statistics, fsck time, and reliability under power loss
# and dm-flakey corruption. Page numbers below are the slides'.
#
# The defaults reproduce the study on the board. The same spec runs in QEMU
# (x86_64, virtio disk) with -var target=qemu, and every size and count is a
# variable, so a short run is possible, e.g.:
#   fsbench run -variant ext4-plain -var target=qemu -var fio_size=16MiB \
#     -var fio_nrfiles=4 -var fio_runtime=3s ... examples/elc2015.fsb.hcl
# (docs/examples.md gives the whole command and how long it takes).

variable "target" {
  type        = string
  default     = "board"
  description = "board: the BeagleBone Black of the study; qemu: QEMU's x86_64 machine with a virtio disk."

  validation {
    condition     = contains(["board", "qemu"], var.target)
    error_message = "target is \"board\" or \"qemu\"."
  }
}

variable "board_storage" {
  type        = string
  default     = "mmcblk1"
  description = "The board's flash: mmcblk1 is the eMMC; mmcblk0 the SD card slot, where the study also measured Kingston and Samsung class 10 cards (p.44, p.62-64, p.68)."
}

variable "binaries" {
  type        = string
  default     = ""
  description = "The build system's output for the board (Buildroot's BINARIES_DIR, Yocto's DEPLOY_DIR_IMAGE) with MLO, u-boot.img, zImage and am335x-boneblack.dtb: build puts them on the boot partition, with extlinux/extlinux.conf, so that the image boots by itself. Empty: the build system places them (its post-image script or image class)."
}

variable "erase_block" {
  type        = string
  default     = "4MiB"
  description = "The eMMC's erase block, as flashbench measures it (p.49); geometry tuning derives from it."

  validation {
    condition     = size(var.erase_block) >= size("128KiB") && size(var.erase_block) <= size("64MiB")
    error_message = "An eMMC erase block lies between 128KiB and 64MiB."
  }
}

variable "emmc_size" {
  type        = string
  default     = "3648MiB"
  description = "User area of the Micron MTFC4GLDEA 4GB eMMC (p.44)."
}

variable "bench_size" {
  type        = string
  default     = "1GiB"
  description = "The bandwidth and mount-time partition: \"a large rootfs (1GB)\" (p.69), the 1GB of the mkfs statistics (p.79). xfs needs 300MiB at least."
}

variable "fio_size" {
  type        = string
  default     = "500MiB"
  description = "fio size: \"size=500MB\" in the study's job (p.52)."
}

variable "fio_bs" {
  type        = list(string)
  default     = ["4MiB", "4KiB"]
  description = "fio block sizes: \"blocksize=[4MB | 4kB]\" (p.52), the Large and Small of the charts."
}

variable "fio_nrfiles" {
  type        = number
  default     = 50
  description = "fio nrfiles: \"nrfiles=50\" (p.52); each file must hold one 4MiB block, so lower it with fio_size."
}

variable "fio_runtime" {
  type        = string
  default     = null
  description = "Longest time one fio case runs; unset (the study's way) a case ends when it has moved fio_size."
}

variable "kthread_io_size" {
  type        = string
  default     = "38GB"
  description = "The \"fixed amount of I/O operations on the mountpoint: 38GB\" during which kernel threads are sampled (p.71)."
}

variable "settle_ci" {
  type        = string
  default     = "5%"
  description = "The study gives boot, mount and fsck times as means with their variation, not the count of runs: each is repeated until the 95% interval of its mean is within this share of the mean."
}

variable "boot_iterations" {
  type        = number
  default     = 10
  description = "Most boots timed from the root mount to the prompt (p.65-68); fewer once the mean is known within settle_ci, never fewer than three."

  validation {
    condition     = var.boot_iterations >= 2
    error_message = "Timing needs at least two boots to give an interval."
  }
}

variable "mount_iterations" {
  type        = number
  default     = 10
  description = "Most mounts timed (p.69-70; the study does not give the count); fewer once the mean is known within settle_ci."

  validation {
    condition     = var.mount_iterations >= 2
    error_message = "Timing needs at least two mounts to give an interval."
  }
}

variable "fill_percent" {
  type        = number
  default     = 60
  description = "How full the bench partition is when its mount is timed: \"60% filled\" (p.69)."
}

variable "fsck_iterations" {
  type        = number
  default     = 10
  description = "Most clean checks timed (p.81-82; the study does not give the count); fewer once the mean is known within settle_ci."

  validation {
    condition     = var.fsck_iterations >= 2
    error_message = "Timing needs at least two checks to give an interval."
  }
}

variable "power_loss_iterations" {
  type        = number
  default     = 226
  description = "Power cuts per case: \"Test ran for 226 iterations for each use case\" (p.93)."
}

variable "power_cut_after" {
  type        = string
  default     = "10s"
  description = "Watchdog timeout: how long the files are written before the reset (p.93 does not give it)."
}

variable "dm_flakey_iterations" {
  type        = number
  default     = 15
  description = "Runs per corruption case: \"Test done on 15 iterations\" (p.97)."
}

variable "flakey_after" {
  type        = string
  default     = "10s"
  description = "\"Corrupt all writes after 10 seconds\" (p.96); a shorter run with smaller files needs a shorter wait for the fault to hit them."
}

variable "flakey_flap_up" {
  type        = string
  default     = "1s"
  description = "\"Corrupt all writes for 1 seconds then allow writes for 1 second\" (p.96): the healthy part of each cycle; 0s makes the device faulty from the start, so that small, fast writers meet the fault."
}

variable "flakey_file_size" {
  type        = string
  default     = "30MiB"
  description = "\"Write a 30MB random file and sync the device\" (p.96)."
}

variable "flakey_small_files" {
  type        = number
  default     = 30
  description = "\"Write multiple 1MB file and sync the disk\" (p.96): how many."
}

variable "rootfs_tar" {
  type        = string
  default     = ""
  description = "Buildroot's rootfs.tar (about 15MB in the study, p.65); empty for fsbench's busybox userland."
}

locals {
  # On the board the study's BeagleBone Black boots from U-Boot; QEMU boots
  # the kernel directly and names its virtio disk vda.
  boards = {
    board = { arch = "arm", console = "ttyS0,115200n8", storage = var.board_storage, bootloader = "extlinux" }
    qemu  = { arch = "x86_64", console = "ttyS0,115200n8", storage = "vda", bootloader = "none" }
  }
  board = local.boards[var.target]
}

# p.44-45: the five candidate filesystems of the charts.
matrix "fs" {
  values = ["ext4", "btrfs", "f2fs", "xfs", "nilfs2"]
}

# p.46-49: ext4 stride, f2fs -s/-z, nilfs2 -B, xfs su/sw from the erase
# block. "Using the geometry tuning is not portable": every filesystem is
# measured with and without it.
matrix "tuning" {
  values = {
    plain = { geometry = false }
    tuned = { geometry = true }
  }
}

# With -var target=qemu this block describes QEMU's machine instead; the
# results name the machine they ran on (target, machine, kernel).
board "beaglebone-black" {
  arch       = local.board.arch
  console    = local.board.console
  storage    = local.board.storage
  init       = "busybox"
  bootloader = local.board.bootloader

  # The boot ROM loads MLO and U-Boot from the active FAT partition; U-Boot's
  # distro boot reads extlinux/extlinux.conf there, which names the kernel,
  # the device tree and the variant's root.
  dynamic "boot" {
    for_each = var.target == "board" && var.binaries != "" ? [var.binaries] : []
    content {
      partition = partition.boot
      kernel    = "${boot.value}/zImage"
      dtb       = "${boot.value}/am335x-boneblack.dtb"
    }
  }
}

image "emmc" {
  table = "mbr"
  size  = var.emmc_size
  align = var.erase_block

  partition "boot" {
    size     = "64MiB"
    bootable = true

    filesystem {
      type  = "vfat"
      label = "BOOT"
    }

    dynamic "contents" {
      for_each = var.target == "board" && var.binaries != "" ? [var.binaries] : []
      content {
        file "/MLO" { source = "${contents.value}/MLO" }
        file "/u-boot.img" { source = "${contents.value}/u-boot.img" }
      }
    }
  }

  # p.65: "Load the MMC with the buildroot rootfs"; boot time is measured
  # on each candidate as the root filesystem.
  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"] # p.46: "noatime: minimize writes"

      dynamic "geometry" {
        for_each = matrix.tuning.geometry ? [var.erase_block] : []
        content {
          erase_block = geometry.value
        }
      }
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

  # "Load the MMC with a large rootfs (1GB) 60% filled" (p.69): the
  # bandwidth, CPU, mkfs-statistics, mount-time and fsck-time partition.
  partition "bench" {
    size    = var.bench_size
    logical = true

    filesystem {
      type       = matrix.fs
      label      = "bench"
      mount      = ["noatime", "discard"] # p.46: noatime, "discard: enable use of TRIM"
      mountpoint = "/mnt/bench"

      dynamic "geometry" {
        for_each = matrix.tuning.geometry ? [var.erase_block] : []
        content {
          erase_block = geometry.value
        }
      }
    }
  }

  # FAT appears in the bandwidth (p.53-60), mount-time (p.70) and
  # efficiency (p.74-75) charts as the baseline.
  partition "fat" {
    size    = "512MiB"
    logical = true

    filesystem {
      type       = "vfat"
      label      = "FAT"
      mountpoint = "/mnt/fat"
    }
  }

  # Power-loss and dm-flakey tests reformat and corrupt this one.
  partition "crash" {
    size    = "512MiB"
    logical = true

    filesystem {
      type       = matrix.fs
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }
}

# p.9-12 and the tuned variants: what the card says of its erase block
# (an eMMC's EXT_CSD erase group, an SD card's allocation unit) and what
# timed reads across its boundaries show, beside var.erase_block; the
# report warns where they differ and gives the tuning they would.
test "flash_info" "card" {
  on = partition.bench
}

# p.79-80: space used by the empty filesystem and the kernel threads its
# mount creates, before anything writes to it.
test "mkfs_stats" "bench" {
  on = partition.bench
}

# p.50-59: rw x bs x direct, "size=500MB, blocksize=[4MB | 4kB],
# nrfiles=50, direct=[0 | 1], numjobs=1, ioengine=libaio" (p.52).
test "fio" "bandwidth" {
  on      = partition.bench
  bs      = var.fio_bs
  size    = var.fio_size
  nrfiles = var.fio_nrfiles
  runtime = var.fio_runtime
}

test "fio" "fat" {
  on      = partition.fat
  bs      = var.fio_bs
  size    = var.fio_size
  nrfiles = var.fio_nrfiles
  runtime = var.fio_runtime
}

# p.50 case 5, p.60-61: "Multi threaded sequential/random read/write",
# direct and buffered.
test "fio" "mixed" {
  on      = partition.bench
  rw      = ["randrw"]
  bs      = ["4KiB"]
  numjobs = 4
  size    = var.fio_size
  nrfiles = var.fio_nrfiles
  runtime = var.fio_runtime
}

# p.73-76: CPU use from fio's output for WriteLarge, WriteSmall,
# ReadLarge and ReadSmall.
test "fio" "cpu" {
  on      = partition.bench
  rw      = ["write", "read"]
  bs      = var.fio_bs
  direct  = [false]
  size    = var.fio_size
  nrfiles = var.fio_nrfiles
  runtime = var.fio_runtime
}

# p.71-72: "Perform a fixed amount of I/O operations on the mountpoint:
# 38GB", with the ticks of every kernel thread from /proc/[pid]/stat.
# 38GB at the eMMC's 10MB/s or so takes an hour: the timeout allows four.
test "fio" "kthreads" {
  on          = partition.bench
  rw          = ["write"]
  bs          = ["4MiB"]
  direct      = [false]
  size        = var.fio_size
  nrfiles     = var.fio_nrfiles
  io_size     = var.kthread_io_size
  runtime     = var.fio_runtime
  kthread_cpu = true
  timeout     = "4h"
}

# p.65-68: root mount to console prompt on the serial line, grabserial
# style, with rootfstype= set so that the kernel does not probe.
test "boot_time" "rootfs" {
  settle {
    ci  = var.settle_ci
    min = min(3, var.boot_iterations)
    max = var.boot_iterations
  }
}

# p.69-70: mount -t of the 60% filled partition: real, user, system.
test "mount_time" "bench" {
  on           = partition.bench
  fill_percent = var.fill_percent

  settle {
    ci  = var.settle_ci
    min = min(3, var.mount_iterations)
    max = var.mount_iterations
  }
}

test "mount_time" "fat" {
  on           = partition.fat
  fill_percent = var.fill_percent

  settle {
    ci  = var.settle_ci
    min = min(3, var.mount_iterations)
    max = var.mount_iterations
  }
}

# p.81-82: the checker on a clean filesystem (nilfs2 has none).
test "fsck_time" "bench" {
  on = partition.bench

  settle {
    ci  = var.settle_ci
    min = min(3, var.fsck_iterations)
    max = var.fsck_iterations
  }
}

# p.93-95: sync and async mounts, files written until the watchdog resets
# the board, then the mount, the kernel log and fsck classify it.
test "power_loss" "watchdog" {
  on         = partition.crash
  iterations = var.power_loss_iterations
  mount      = ["async", "sync"]
  cut_after  = var.power_cut_after
}

# p.96-103: dm-flakey writing 00 at the first byte of each block, after
# 10 seconds or 1 second on / 1 second off, under one 30MB file or many
# 1MB files.
test "dm_flakey" "corruption" {
  on              = partition.crash
  iterations      = var.dm_flakey_iterations
  schedule        = ["after", "flapping"]
  writer          = ["large_file", "small_files"]
  after           = var.flakey_after
  flap_up         = var.flakey_flap_up
  large_file_size = var.flakey_file_size
  small_files     = var.flakey_small_files
}
