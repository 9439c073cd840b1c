matrix "fs" { # ERROR: Missing required argument
  description = "The candidate root filesystems."
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
