image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type = "ext4"
      tuning {
        strid = 1024 # ERROR: Unsupported tuning option
      }
    }
  }
}
