image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size = "128MiB"

    filesystem {
      type = "f2fs"
      geometry {
        erase_block = "16MiB" # ERROR: f2fs sections too large for the volume
      }
    }
  }
}
