image "emmc" {
  size = "3648MiB"

  partition "rootfs" { # ERROR: Missing partition size
    root = true
    filesystem { type = "ext4" }
  }
}
