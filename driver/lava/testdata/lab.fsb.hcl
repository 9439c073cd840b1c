# A small spec for a LAVA lab's qemu device: one ext4 root and a bench
# partition, two boots timed and one fio case.

variable "filesystems" {
  type    = list(string)
  default = ["ext4"]
}

matrix "fs" {
  values = var.filesystems
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"

  lava {
    device_type = "qemu"
    tags        = ["tcg"]
  }
}

image "disk" {
  table = "gpt"
  size  = "256MiB"

  partition "rootfs" {
    size = "128MiB"
    root = true

    filesystem {
      type  = matrix.fs
      label = "rootfs"
    }

    contents {
      userland = "busybox"
    }
  }

  partition "bench" {
    grow = true

    filesystem {
      type       = matrix.fs
      label      = "bench"
      mountpoint = "/mnt/bench"
    }
  }
}

test "boot_time" "rootfs" {
  iterations = 2
}

test "fio" "seq" {
  on      = partition.bench
  rw      = ["write"]
  bs      = ["1MiB"]
  size    = "8MiB"
  runtime = "3s"
  nrfiles = 2
}
