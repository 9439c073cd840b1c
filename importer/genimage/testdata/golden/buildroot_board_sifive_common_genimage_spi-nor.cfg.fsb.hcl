# Imported from genimage_spi-nor.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage_spi-nor.cfg:1: image spi-nor.img (hdimage)
image "spi-nor" {
  table = "gpt"
  size  = "32MiB"
  align = "512B"

  # genimage_spi-nor.cfg:8: partition u-boot-spl
  partition "u-boot-spl" {
    offset = "20KiB"
    type   = "5b193300-fc78-40cd-8002-e86c45580b47"
    image  = "${var.binaries}/u-boot-spl.bin"
  }

  # genimage_spi-nor.cfg:14: partition u-boot
  partition "u-boot" {
    offset = "1044KiB"
    type   = "2e54b353-1271-4842-806f-e436d6af6985"
    image  = "${var.binaries}/u-boot.itb"
  }
}
