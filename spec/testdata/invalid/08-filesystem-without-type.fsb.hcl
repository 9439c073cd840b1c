image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem { # ERROR: Missing required argument
      label = "rootfs"
      mount = ["noatime"]
    }
  }
}
