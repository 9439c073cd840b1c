# The Raspberry Pi firmware reads its files from a FAT partition.
board "rpi4" {
  arch       = "arm64"
  bootloader = "rpi"
  storage    = "mmcblk0"
  boot {
    partition = partition.boot # ERROR: Raspberry Pi boot files off a FAT partition
    kernel    = "empty.img"
  }
}

image "sdcard" {
  size  = "256MiB"
  table = "mbr"
  partition "boot" {
    size = "64MiB"
    filesystem { type = "ext4" }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
