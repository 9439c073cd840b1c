# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:16: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:20: partition boot, image boot.vfat (vfat, line 3)
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
      file "/at91-sama5d4_xplained.dtb" {
        source = "${var.binaries}/at91-sama5d4_xplained.dtb"
      }
      # genimage.cfg:8
      file "/boot.bin" {
        source = "${var.binaries}/boot.bin"
      }
      # genimage.cfg:9
      file "/u-boot.bin" {
        source = "${var.binaries}/u-boot.bin"
      }
    }
  }

  # genimage.cfg:27: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
