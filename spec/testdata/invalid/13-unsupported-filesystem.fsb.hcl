image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "ext5" # ERROR: Unsupported filesystem type
      label = "rootfs"
    }
  }
}
