image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "ext4"
      mount = ["noatim", "discard"] # ERROR: unknown ext4 mount option
    }
  }
}
