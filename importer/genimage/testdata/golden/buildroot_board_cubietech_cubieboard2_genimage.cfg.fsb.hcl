# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:5: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "1016KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:12: partition rootfs
  partition "rootfs" {
    offset = "1MiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext4"
  }
}
