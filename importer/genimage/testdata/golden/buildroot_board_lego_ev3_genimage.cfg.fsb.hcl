# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:13: image flash.bin (flash), chip nor-16M-256: 4096 erase blocks of 4096 bytes
image "flash" {
  table = "none"
  align = "4KiB"
  fill  = "0xff"

  # genimage.cfg:18: partition uboot
  partition "uboot" {
    size  = "256KiB"
    image = "${var.binaries}/u-boot.bin"
  }

  # genimage.cfg:23: partition dtb
  partition "dtb" {
    offset = "256KiB"
    size   = "64KiB"
    image  = "${var.binaries}/da850-lego-ev3.dtb"
  }

  # genimage.cfg:29: partition uimage
  partition "uimage" {
    offset = "320KiB"
    size   = "4MiB"
    image  = "${var.binaries}/uImage"
  }

  # genimage.cfg:35: partition rootfs
  partition "rootfs" {
    offset = "4416KiB"
    size   = "10MiB"
    image  = "${var.binaries}/rootfs.squashfs"
  }
}

# genimage.cfg:58: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:62: partition boot, image boot.vfat (vfat, line 44)
  partition "boot" {
    offset   = "4MiB"
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:46
      file "/uImage" {
        source = "${var.binaries}/uImage"
      }
      # genimage.cfg:50
      file "/da850-lego-ev3.dtb" {
        source = "${var.binaries}/da850-lego-ev3.dtb"
      }
    }
  }

  # genimage.cfg:69: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
