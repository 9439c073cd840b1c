# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:3: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:8: partition spl
  partition "spl" {
    offset = "2MiB"
    type   = "2e54b353-1271-4842-806f-e436d6af6985"
    image  = "${var.binaries}/u-boot-spl.bin.normal.out"
  }

  # genimage.cfg:14: partition uboot
  partition "uboot" {
    offset = "4MiB"
    type   = "bc13c2ff-59e6-4262-a352-b275fd6f7172"
    image  = "${var.binaries}/u-boot.itb"
  }

  # genimage.cfg:20: partition rootfs
  partition "rootfs" {
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
