image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type = "ext4"
      tuning {
        reserved_percent = 60 # ERROR: Invalid tuning value
      }
    }
  }
}
