# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:6: partition fsbl1
  partition "fsbl1" {
    size  = "256KiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/u-boot-spl.stm32"
  }

  # genimage.cfg:11: partition fsbl2
  partition "fsbl2" {
    size  = "256KiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/u-boot-spl.stm32"
  }

  # genimage.cfg:16: partition ssbl
  partition "ssbl" {
    size  = "2MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/u-boot.img"
  }

  # genimage.cfg:21: partition rootfs
  partition "rootfs" {
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
