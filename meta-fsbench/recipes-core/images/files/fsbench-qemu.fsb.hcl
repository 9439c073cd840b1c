# The example image's self-test on QEMU (qemux86-64, qemuarm64): two
# candidate root filesystems on a virtio disk, and a short test plan the
# image runs on its first boots. The fsbench-image class passes the image's
# root filesystem tarball as rootfs_tar; without it (fsbench run, kconfig,
# buildvars) the root filesystem is Debian's busybox.

variable "rootfs_tar" {
  type        = string
  default     = ""
  description = "The root filesystem tarball: the image's IMAGE_NAME.tar."
}

variable "arch" {
  type        = string
  default     = "x86_64"
  description = "The QEMU machine: x86_64 (q35) or arm64 (virt); the class's FSBENCH_ARCH."
}

matrix "fs" {
  values = ["ext4", "btrfs"]
}

board "qemu" {
  arch    = var.arch
  storage = "vda"
  init    = "sysvinit"
}

image "disk" {
  table = "gpt"
  size  = "2GiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"]
    }

    contents {
      tar      = var.rootfs_tar != "" ? var.rootfs_tar : null
      userland = var.rootfs_tar == "" ? "busybox" : null
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
  iterations = 3
}

test "fio" "bandwidth" {
  on      = partition.bench
  rw      = ["randread", "randwrite", "read", "write"]
  bs      = ["4KiB", "1MiB"]
  size    = "16MiB"
  nrfiles = 4
}

test "mount_time" "bench" {
  on         = partition.bench
  iterations = 3
}

test "fsck_time" "bench" {
  on = partition.bench
}

test "sqlite_tps" "bench" {
  on           = partition.bench
  transactions = 200
}

test "power_loss" "bench" {
  on         = partition.bench
  iterations = 3
  mount      = ["async"]
}
