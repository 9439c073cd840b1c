matrix "fs" {
  values = ["ext4", "f2fs"]
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
  endurance {
    capacity  = "8GiB"
    pe_cycles = 3000
  }
}

image "disk" {
  table = "gpt"
  size  = "1GiB"
  partition "rootfs" {
    size = "256MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
  }
  partition "bench" {
    size = "512MiB"
    filesystem {
      type       = matrix.fs
      mount      = ["noatime"]
      mountpoint = "/bench"
    }
  }
}

test "fio" "seq" {
  on = partition.bench
  rw = ["read", "write"]
  bs = ["4MiB"]
}

test "mount_time" "bench" {
  on = partition.bench
}
