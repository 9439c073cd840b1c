# Some TLC eMMCs report a 3MiB erase block; fsbench only takes powers of two.
image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type = "f2fs"
      geometry {
        erase_block = "3MiB" # ERROR: Invalid flash geometry
      }
    }
  }
}
