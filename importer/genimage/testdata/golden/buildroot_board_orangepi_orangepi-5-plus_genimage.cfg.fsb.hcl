# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:6: partition uboot (in-partition-table = false)
  raw "uboot" {
    offset = "32KiB"
    file   = "${var.binaries}/u-boot-rockchip.bin"
  }

  # genimage.cfg:12: partition uboot-env
  partition "uboot-env" {
    offset = "16MiB"
    size   = "64KiB"
    type   = "3de21764-95bd-54bd-a5c3-4abe786f38a8"
  }

  # genimage.cfg:18: partition rootfs
  partition "rootfs" {
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    image    = "${var.binaries}/rootfs.ext2"
  }
}
