image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size = "1GiB"
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
}

test "mkfs_stats" "bench" {
  on = partition.bench # ERROR: Test needs an empty filesystem
}
