# Allwinner A64 (Pine64, Orange Pi): the boot ROM reads the SPL from
# sector 16 (8KiB) of the SD card, right where the standard GPT entry
# array lies (sectors 2-33). The array moves to 1MiB, after
# u-boot-sunxi-with-spl.bin, and the partitions follow it.
board "pine64" {
  arch       = "arm64"
  storage    = "mmcblk0"
  bootloader = "none"
}

image "sdcard" {
  size         = "256MiB"
  gpt_location = "1MiB"

  raw "u-boot" {
    offset = "8KiB"
    file   = "blobs/u-boot-sunxi-with-spl.bin"
  }

  partition "boot" {
    size = "64MiB"
    type = "esp"
  }
  partition "rootfs" {
    grow = true
    type = "root"
  }
}
