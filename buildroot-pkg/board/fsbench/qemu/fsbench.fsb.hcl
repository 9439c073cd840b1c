# The self-test of this tree's QEMU boards: two candidate root
# filesystems on a virtio disk, and a short test plan the image runs on its
# first boots. post-image.sh passes Buildroot's root filesystem tarball as
# rootfs_tar; without it (fsbench run, kconfig, buildvars) the root
# filesystem is Debian's busybox, so the same spec also runs on its own.

variable "rootfs_tar" {
  type        = string
  default     = ""
  description = "The root filesystem tarball: Buildroot's BINARIES_DIR/rootfs.tar."
}

variable "arch" {
  type        = string
  default     = "x86_64"
  description = "The QEMU machine: x86_64 (q35) or arm64 (virt)."
}

matrix "fs" {
  values = ["ext4", "f2fs"]
}

board "qemu" {
  arch    = var.arch
  storage = "vda"
  init    = "busybox"
}

image "disk" {
  table = "gpt"
  size  = "1GiB"

  partition "rootfs" {
    size = "256MiB"
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
