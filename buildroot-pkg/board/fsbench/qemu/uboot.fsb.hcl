# QEMU's arm64 virt machine booted the way a board boots: U-Boot
# (Buildroot's qemu_arm64 build in pflash, or Debian's u-boot-qemu) finds
# extlinux/extlinux.conf on the disk's first partition, which names the
# kernel Buildroot built and the variant's command line; the kernel mounts
# the variant's root filesystem, whose runner tests the disk on its first
# boots. The board's own image (genimage.sh's sdcard.img) is made beside
# fsbench's, as a board that keeps its genimage configuration does.
#
# post-image.sh gives the spec binaries (BINARIES_DIR) and rootfs_tar
# (BINARIES_DIR/rootfs.tar); fsbench validate, plan, kconfig and buildvars
# run before the build, with their paths still to come.

variable "binaries" {
  type        = string
  description = "Buildroot's BINARIES_DIR: the kernel Image, and the initramfs if any."
}

variable "rootfs_tar" {
  type        = string
  description = "The root filesystem tarball: Buildroot's BINARIES_DIR/rootfs.tar."
}

variable "initramfs" {
  type        = string
  default     = ""
  description = "An initramfs in binaries, for a kernel that loads its disk and filesystem drivers as modules (a distribution's); empty for Buildroot's kernel, which has them built in."
}

matrix "fs" {
  values = ["ext4", "f2fs"]
}

board "qemu-arm64" {
  arch       = "arm64"
  console    = "ttyAMA0,115200n8"
  storage    = "vda"
  init       = "busybox"
  bootloader = "extlinux"

  boot {
    partition = partition.boot
    kernel    = "${var.binaries}/Image"
    initramfs = var.initramfs != "" ? "${var.binaries}/${var.initramfs}" : null
  }
}

image "disk" {
  table = "gpt"
  size  = "768MiB"

  # U-Boot's distro boot reads the first partition when none is marked
  # bootable; it cannot read f2fs, so the boot files have a FAT partition.
  partition "boot" {
    size = "64MiB"
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  partition "rootfs" {
    size = "256MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"]
    }

    contents {
      tar = var.rootfs_tar
    }
  }

  partition "bench" {
    grow = true

    filesystem {
      type       = matrix.fs
      label      = "bench"
      mount      = ["noatime"]
      mountpoint = "/mnt/bench"
    }
  }
}

test "boot_time" "rootfs" {
  iterations = 2
}

test "fio" "bandwidth" {
  on      = partition.bench
  rw      = ["randwrite", "read"]
  bs      = ["4KiB"]
  size    = "8MiB"
  nrfiles = 1
}

test "mount_time" "bench" {
  on         = partition.bench
  iterations = 2
}
