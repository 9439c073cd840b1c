# A 32KiB erase block holds 8 blocks of 4KiB: too few for a nilfs2 segment.
image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size = "1GiB"

    filesystem {
      type = "nilfs2"
      geometry {
        erase_block = "32KiB" # ERROR: nilfs2 segment cannot match the erase block
      }
    }
  }
}
