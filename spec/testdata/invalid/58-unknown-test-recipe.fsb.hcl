image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

test "boottime" "rootfs" { # ERROR: Unknown test recipe
  iterations = 3
}
