image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "power_loss" "watchdog" {
  on         = partition.rootfs # ERROR: Test needs a partition of its own
  iterations = 20
}
