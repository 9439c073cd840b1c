image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type = "ext4"
      geometry {
        erase_block = "16KiB"
        page_size   = "64KiB" # ERROR: Invalid flash geometry
      }
    }
  }
}
