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

test "boot_time" "bench" {
  on         = partition.bench # ERROR: Invalid test target
  iterations = 5
}
