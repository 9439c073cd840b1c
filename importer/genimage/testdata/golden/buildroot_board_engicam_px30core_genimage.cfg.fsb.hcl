# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:5: partition u-boot-tpl-spl-dtb (in-partition-table = false)
  raw "u-boot-tpl-spl-dtb" {
    offset = "32KiB"
    file   = "${var.binaries}/idbloader.img"
  }

  # genimage.cfg:11: partition u-boot-dtb (in-partition-table = false)
  raw "u-boot-dtb" {
    offset = "8MiB"
    size   = "30MiB"
    file   = "${var.binaries}/u-boot.itb"
  }

  # genimage.cfg:18: partition rootfs
  partition "rootfs" {
    offset = "38MiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext4"
  }
}
