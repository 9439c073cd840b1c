# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:24: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:28: partition boot, image boot.vfat (vfat, line 3)
  partition "boot" {
    offset   = "1MiB"
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:6
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:7
      file "/at91sam9g15ek.dtb" {
        source = "${var.binaries}/at91sam9g15ek.dtb"
      }
      # genimage.cfg:8
      file "/at91sam9g25ek.dtb" {
        source = "${var.binaries}/at91sam9g25ek.dtb"
      }
      # genimage.cfg:9
      file "/at91sam9g35ek.dtb" {
        source = "${var.binaries}/at91sam9g35ek.dtb"
      }
      # genimage.cfg:10
      file "/at91sam9x25ek.dtb" {
        source = "${var.binaries}/at91sam9x25ek.dtb"
      }
      # genimage.cfg:11
      file "/at91sam9x35ek.dtb" {
        source = "${var.binaries}/at91sam9x35ek.dtb"
      }
      # genimage.cfg:12
      file "/boot.bin" {
        source = "${var.binaries}/boot.bin"
      }
      # genimage.cfg:13
      file "/u-boot.bin" {
        source = "${var.binaries}/u-boot.bin"
      }
      # genimage.cfg:16
      file "/uboot.env" {
        source = "${var.binaries}/uboot-env.bin"
      }
    }
  }

  # genimage.cfg:35: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
