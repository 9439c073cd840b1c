# Amlogic S905 (Odroid C2): u-boot.bin.sd.bin starts at byte 0 of the SD
# card, boot code included, and leaves out bytes 440-511 for the MBR: its
# hole keeps the table's bytes. The rest of the loader follows from
# sector 1.
board "odroid-c2" {
  arch    = "arm64"
  storage = "mmcblk0"
}

image "sdcard" {
  table = "mbr"
  size  = "256MiB"

  raw "u-boot" {
    offset = 0
    file   = "blobs/u-boot.bin.sd.bin"
    holes  = [{ offset = 440, size = 72 }]
  }

  partition "boot" {
    offset = "2MiB"
    size   = "64MiB"
    type   = "fat32"
  }
  partition "rootfs" {
    grow = true
    type = "linux"
  }
}
