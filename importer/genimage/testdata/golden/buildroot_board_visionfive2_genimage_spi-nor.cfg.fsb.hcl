# Imported from genimage_spi-nor.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage_spi-nor.cfg:7: image spi-nor.img (flash), chip nor-16M-256: 4096 erase blocks of 4096 bytes
image "spi-nor" {
  table = "none"
  size  = "16MiB"
  align = "4KiB"
  fill  = "0xff"

  # genimage_spi-nor.cfg:15: partition spl
  partition "spl" {
    size  = "512KiB"
    image = "${var.binaries}/u-boot-spl.bin.normal.out"
  }

  # genimage_spi-nor.cfg:21: partition uboot-env
  partition "uboot-env" {
    offset = "960KiB"
    size   = "64KiB"
  }

  # genimage_spi-nor.cfg:26: partition uboot
  partition "uboot" {
    offset = "1MiB"
    size   = "4MiB"
    image  = "${var.binaries}/u-boot.itb"
  }

  # genimage_spi-nor.cfg:32: partition reserved-data
  partition "reserved-data" {
    offset = "6MiB"
    size   = "10MiB"
  }
}
