# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:9: image flash.bin (flash), chip w25q128: 256 erase blocks of 65536 bytes
image "flash" {
  table = "none"
  size  = "16MiB"
  align = "64KiB"
  fill  = "0xff"

  # genimage.cfg:13: partition uboot
  partition "uboot" {
    size  = "512KiB"
    image = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:18: partition dtb
  partition "dtb" {
    size  = "64KiB"
    image = "${var.binaries}/suniv-f1c100s-licheepi-nano.dtb"
  }

  # genimage.cfg:23: partition zimage
  partition "zimage" {
    size  = "5MiB"
    image = "${var.binaries}/zImage"
  }

  # genimage.cfg:28: partition rootfs
  partition "rootfs" {
    grow  = true
    image = "${var.binaries}/rootfs.jffs2"
  }
}
