matrix "fs" {
  values = ["ext4", "f2fs", "btrfs", "ext4"] # ERROR: Invalid matrix values
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = matrix.fs }
  }
}
