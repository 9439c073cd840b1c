# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image flash.img (flash), chip nor-32M-256: 8192 erase blocks of 4096 bytes
image "flash" {
  table = "none"
  align = "4KiB"
  fill  = "0xff"

  # genimage.cfg:19: partition uboot
  partition "uboot" {
    size  = "384KiB"
    image = "${var.binaries}/u-boot.bin"
  }

  # genimage.cfg:24: partition ubootenv
  partition "ubootenv" {
    offset = "384KiB"
    size   = "128KiB"
  }

  # genimage.cfg:30: partition fitimage
  partition "fitimage" {
    offset = "512KiB"
    size   = "7000KiB"
    image  = "${var.binaries}/image.itb"
  }

  # genimage.cfg:36: partition spare
  partition "spare" {
    offset = "7512KiB"
    size   = "25256KiB"
  }
}
