# fsbench quickstart: one small disk, five candidate root filesystems, and a
# short test plan that runs in QEMU in a few minutes. Run it with
#   fsbench plan examples/quickstart.fsb.hcl
# and read the layout, the mkfs command lines and the kernel command line of
# each variant before anything is built.

variable "fio_size" {
  type        = string
  default     = "16MiB"
  description = "Bytes each fio case moves (the ELC2015 study used 500MB; under TCG a 4KiB random case moves about 2 MB/s)."
}

variable "fio_runtime" {
  type        = string
  default     = "3s"
  description = "Longest time one fio case runs; a case that has not moved fio_size by then stops and reports what it did (small blocks under TCG are slow)."
}

variable "boot_iterations" {
  type        = number
  default     = 3
  description = "Reboots timed from the root mount to the shell prompt."

  validation {
    condition     = var.boot_iterations >= 1
    error_message = "At least one boot is needed to measure anything."
  }
}

variable "fill_percent" {
  type        = number
  default     = 60
  description = "How full the bench partition is when its mount is timed (ELC 2015: 60%)."
}

# One variant per root filesystem: ext4, f2fs, btrfs, xfs and nilfs2.
matrix "fs" {
  values = ["ext4", "f2fs", "btrfs", "xfs", "nilfs2"]
}

# QEMU's x86_64 machine with a virtio disk: the default virtual target.
# fsbench run boots Debian's kernel into it directly (the fastest path);
# docs/spec-language.md's boot block makes an image that boots itself
# through U-Boot instead (fsbench run -boot uboot).
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
  init    = "busybox"
}

image "disk" {
  table = "gpt"
  align = "1MiB"

  # The bench partition gets what the root leaves (about 360MiB): the fill
  # before mount_time writes 60% of it, and under TCG every MiB written
  # costs time. nilfs2 frees the space of deleted files only through
  # nilfs_cleanerd, a userspace daemon the busybox userland does not have,
  # so the fill finds what fio wrote there still counted as used (about
  # 100MiB) and writes less. fio leaves up to six times fio_size there
  # (four layouts, two writing runs): from a fio_size of about 64MiB on,
  # nilfs2's bench is fuller than fill_percent before the fill (76% at
  # 64MiB), mount_time writes nothing and says so, and nilfs2 needs a
  # larger disk. The image is sparse: a larger disk costs nothing until
  # written.
  size = "768MiB"

  # xfsprogs 5.19 and later refuse filesystems below 300MiB, so both
  # partitions stay above that for every variant.
  partition "rootfs" {
    size = "400MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
      mount = ["noatime"]
    }

    # No build system here: fsbench assembles a small busybox system from
    # Debian's busybox-static, with a login prompt on the console.
    contents {
      userland = "busybox"
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
  iterations = var.boot_iterations
}

# A small fio matrix, in the four corners drives are usually compared by:
# sequential bandwidth in large blocks, random I/O in 4KiB blocks.
# examples/elc2015.fsb.hcl sweeps the whole rw x bs matrix of the study.
test "fio" "seq" {
  on      = partition.bench
  rw      = ["read", "write"]
  bs      = ["4MiB"]
  direct  = [true]
  size    = var.fio_size
  runtime = var.fio_runtime
  nrfiles = 4
}

test "fio" "rand" {
  on      = partition.bench
  rw      = ["randread", "randwrite"]
  bs      = ["4KiB"]
  direct  = [true]
  size    = var.fio_size
  runtime = var.fio_runtime
  nrfiles = 4
}

test "mount_time" "bench" {
  on           = partition.bench
  fill_percent = var.fill_percent
  iterations   = 3
}
