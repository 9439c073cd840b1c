image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

image "emmc" { # ERROR: Duplicate image
  size = "3648MiB"

  partition "data" {
    size = "1GiB"
    filesystem { type = "ext4" }
  }
}
