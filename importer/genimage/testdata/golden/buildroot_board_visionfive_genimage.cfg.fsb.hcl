# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:3: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:8: partition dummy1
  partition "dummy1" {
    size = "512B"
    type = "0x00"
  }

  # genimage.cfg:12: partition dummy2
  partition "dummy2" {
    size = "512B"
    type = "0x00"
  }

  # genimage.cfg:16: partition rootfs
  partition "rootfs" {
    type     = "0x83"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
