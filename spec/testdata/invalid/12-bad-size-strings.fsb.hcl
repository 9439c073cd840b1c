image "emmc" {
  size = "4 parsecs" # ERROR: Invalid image size

  partition "rootfs" {
    size = "1.3B" # ERROR: Invalid partition size
    root = true
    filesystem { type = "ext4" }
  }
}
