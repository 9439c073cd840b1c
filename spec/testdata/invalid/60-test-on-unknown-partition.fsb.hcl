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
  on = partition.bnech # ERROR: Unknown partition
}
