image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type    = "ext3"
      journal = false # ERROR: ext3 requires a journal
    }
  }
}
