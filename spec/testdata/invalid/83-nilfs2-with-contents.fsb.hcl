image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "nilfs2" }

    contents { # ERROR: nilfs2 cannot be populated offline
      dir = "rootfs"
    }
  }
}
