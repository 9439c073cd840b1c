# An SD card's allocation unit taken for the erase block: 512MiB / 4KiB
# blocks = 131072 blocks, more than the 16-bit stride holds.
image "sd" {
  size  = "8GiB"
  align = "4MiB"

  partition "rootfs" {
    size = "2GiB"
    root = true

    filesystem {
      type = "ext4"
      geometry {
        erase_block = "512MiB" # ERROR: ext4 stride too large
      }
    }
  }
}
