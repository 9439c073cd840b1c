image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

test "mount_time" "rootfs" {
  on           = partition.rootfs # ERROR: Test needs a partition of its own
  fill_percent = 60
}
