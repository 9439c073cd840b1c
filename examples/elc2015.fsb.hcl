# The ELC2015 study "Filesystem considerations for embedded devices"
# (T. Lelong): ext4, btrfs, f2fs, xfs and nilfs2 on a BeagleBone Black's
# 4GB eMMC, each with and without flash-geometry tuning, measured for
# bandwidth (fio), boot time, mount time, fsck time, mkfs statistics, CPU
# use, and reliability under power loss and dm-flakey corruption.
#
# The defaults reproduce the study; override the variables for a shorter
# run, e.g. -var power_loss_iterations=5 -var fio_size=64MiB.

variable "erase_block" {
  type        = string
  default     = "4MiB"
  description = "The eMMC's erase block, as flashbench measures it; geometry tuning derives from it."

  validation {
    condition     = size(var.erase_block) >= size("128KiB") && size(var.erase_block) <= size("64MiB")
    error_message = "An eMMC erase block lies between 128KiB and 64MiB."
  }
}

variable "emmc_size" {
  type        = string
  default     = "3648MiB"
  description = "User area of the Micron MTFC4GLDEA 4GB eMMC."
}

variable "fio_size" {
  type    = string
  default = "500MiB" # "size=500MB" in the study's fio job
}

variable "boot_iterations" {
  type    = number
  default = 10
}

variable "power_loss_iterations" {
  type    = number
  default = 226 # "Test ran for 226 iterations for each use case"
}

variable "dm_flakey_iterations" {
  type    = number
  default = 15 # "Test done on 15 iterations"
}

variable "rootfs_tar" {
  type        = string
  default     = ""
  description = "Buildroot's rootfs.tar (about 15MB in the study); empty for an empty root."
}

matrix "fs" {
  values = ["ext4", "btrfs", "f2fs", "xfs", "nilfs2"]
}

# "Using the geometry tuning is not portable": every filesystem is measured
# with and without it.
matrix "tuning" {
  values = {
    plain = { geometry = false }
    tuned = { geometry = true }
  }
}

board "beaglebone-black" {
  arch       = "arm"
  console    = "ttyS0,115200n8"
  storage    = "mmcblk1"
  init       = "busybox"
  bootloader = "uboot"
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
  }

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"]

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
  }

  # "Load the MMC with a large rootfs (1GB) 60% filled": the bandwidth and
  # mount-time partition.
  partition "bench" {
    size    = "1GiB"
    logical = true

    filesystem {
      type       = matrix.fs
      label      = "bench"
      mount      = ["noatime", "discard"]
      mountpoint = "/mnt/bench"

      dynamic "geometry" {
        for_each = matrix.tuning.geometry ? [var.erase_block] : []
        content {
          erase_block = geometry.value
        }
      }
    }
  }

  # FAT appears in the study's bandwidth charts as the baseline.
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

# Statistics of the freshly made filesystem, before anything writes to it.
test "mkfs_stats" "bench" {
  on = partition.bench
}

# rw x bs x direct, size=500MB, nrfiles=50, numjobs=1, ioengine=libaio.
test "fio" "bandwidth" {
  on   = partition.bench
  size = var.fio_size
}

test "fio" "fat" {
  on   = partition.fat
  size = var.fio_size
}

# "Multi threaded sequential/random read/write".
test "fio" "mixed" {
  on      = partition.bench
  rw      = ["randrw"]
  bs      = ["4KiB"]
  numjobs = 4
  size    = var.fio_size
}

# CPU use: a fixed amount of I/O, kernel threads sampled from /proc.
test "fio" "cpu" {
  on          = partition.bench
  rw          = ["write", "read"]
  bs          = ["4MiB", "4KiB"]
  direct      = [false]
  size        = var.fio_size
  kthread_cpu = true
}

test "boot_time" "rootfs" {
  iterations = var.boot_iterations
}

test "mount_time" "bench" {
  on           = partition.bench
  fill_percent = 60
}

test "fsck_time" "bench" {
  on = partition.bench
}

test "power_loss" "watchdog" {
  on         = partition.crash
  iterations = var.power_loss_iterations
  mount      = ["async", "sync"]
}

test "dm_flakey" "corruption" {
  on         = partition.crash
  iterations = var.dm_flakey_iterations
  schedule   = ["after", "flapping"]
  writer     = ["large_file", "small_files"]
}
