# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.
# NOTE genimage.cfg:5: size: the region takes its file's size; genimage's size (130048) only bounds it
# NOTE genimage.cfg:12: size: the region takes its file's size; genimage's size (524288) only bounds it

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
    file   = "${var.binaries}/SPL"
  }

  # genimage.cfg:12: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "128KiB"
    file   = "${var.binaries}/u-boot.img"
  }

  # genimage.cfg:19: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
