image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true # ERROR: Root partition without a filesystem
  }
}
