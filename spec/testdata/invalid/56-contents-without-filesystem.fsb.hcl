image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }

  partition "data" {
    size = "256MiB"

    contents { # ERROR: Contents without a filesystem
      dir = "rootfs"
    }
  }
}
