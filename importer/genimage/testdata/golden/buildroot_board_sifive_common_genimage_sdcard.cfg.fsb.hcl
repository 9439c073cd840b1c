# Imported from genimage_sdcard.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage_sdcard.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage_sdcard.cfg:6: partition u-boot-spl
  partition "u-boot-spl" {
    offset = "17KiB"
    type   = "5b193300-fc78-40cd-8002-e86c45580b47"
    image  = "${var.binaries}/u-boot-spl.bin"
  }

  # genimage_sdcard.cfg:12: partition u-boot
  partition "u-boot" {
    offset = "1041KiB"
    type   = "2e54b353-1271-4842-806f-e436d6af6985"
    image  = "${var.binaries}/u-boot.itb"
  }

  # genimage_sdcard.cfg:18: partition rootfs
  partition "rootfs" {
    offset   = "4076KiB"
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
