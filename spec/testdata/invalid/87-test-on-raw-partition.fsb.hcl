image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
  }
}

test "fsck_time" "bench" {
  on = partition.bench # ERROR: Test on a partition without a filesystem
}
