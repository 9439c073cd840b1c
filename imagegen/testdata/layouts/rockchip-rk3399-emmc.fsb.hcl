# Rockchip RK3399: the boot ROM reads idbloader.img from sector 64
# (32KiB), and U-Boot's SPL loads u-boot.itb from sector 16384 (8MiB).
# The standard GPT ends at sector 33, below both; the boot partition
# starts at sector 32768 (16MiB), as Rockchip's partition table does.
board "rockpro64" {
  arch    = "arm64"
  storage = "mmcblk1"
}

image "emmc" {
  size = "512MiB"

  raw "idbloader" {
    offset = "32KiB"
    file   = "blobs/idbloader.img"
  }
  raw "u-boot" {
    offset = "8MiB"
    file   = "blobs/u-boot.itb"
  }

  partition "boot" {
    offset   = "16MiB"
    size     = "112MiB"
    type     = "esp"
    bootable = true
  }
  partition "rootfs" {
    grow = true
    type = "root-arm64"
  }
}
