# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image flash.img (flash), chip nor-64M-256: 16384 erase blocks of 4096 bytes
image "flash" {
  table = "none"
  align = "4KiB"
  fill  = "0xff"

  # genimage.cfg:19: partition uboot
  partition "uboot" {
    size  = "896KiB"
    image = "${var.binaries}/u-boot.bin"
  }

  # genimage.cfg:24: partition ubootenv
  partition "ubootenv" {
    offset = "896KiB"
    size   = "128KiB"
  }

  # genimage.cfg:30: partition fitimage
  partition "fitimage" {
    offset = "1MiB"
    size   = "9MiB"
    image  = "${var.binaries}/image.itb"
  }

  # genimage.cfg:36: partition spare
  partition "spare" {
    offset = "10MiB"
    size   = "54MiB"
  }
}
