# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:5: partition SPL (in-partition-table = false)
  raw "SPL" {
    offset = "1KiB"
    size   = "127KiB"
    file   = "${var.binaries}/SPL"
  }

  # genimage.cfg:12: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "128KiB"
    size   = "512KiB"
    file   = "${var.binaries}/u-boot.img"
  }

  # genimage.cfg:19: partition rootfs
  partition "rootfs" {
    offset = "640KiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext4"
  }
}
