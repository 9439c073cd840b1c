image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "bandwidth" {
  on      = partition.bench
  bs      = ["4MiB", "4KiB"]
  size    = "50MB" # ERROR: Size not a multiple of the block size
  nrfiles = 4
}
