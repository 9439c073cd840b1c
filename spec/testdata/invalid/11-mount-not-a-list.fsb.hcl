image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "ext4"
      mount = "noatime" # ERROR: Invalid mount options
    }
  }
}
