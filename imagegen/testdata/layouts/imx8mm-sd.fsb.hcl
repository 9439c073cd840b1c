# NXP i.MX8M Mini: the boot ROM reads flash.bin from 33KiB of the SD
# card. The partitions, placed without offsets, skip past it to the next
# 1MiB boundary, and the GPT's first usable sector follows it, so that no
# partitioning tool offers its sectors as free space.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk1"
}

image "sdcard" {
  size = "512MiB"

  raw "flash" {
    offset = "33KiB"
    file   = "blobs/flash.bin"
  }

  partition "boot" {
    size = "64MiB"
    type = "fat32"
  }
  partition "rootfs" {
    grow = true
    type = "linux"
  }
}
