# Imported from genimage_sdcard.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage_sdcard.cfg:12: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage_sdcard.cfg:16: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size = "2MiB"
    type = "0x0c"
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage_sdcard.cfg:4
      file "/u-boot-spl.bin" {
        source = "${var.binaries}/u-boot-spl.bin"
      }
      # genimage_sdcard.cfg:5
      file "/u-boot.itb" {
        source = "${var.binaries}/u-boot.itb"
      }
      # genimage_sdcard.cfg:6
      file "/ae350_ax45mp.dtb" {
        source = "${var.binaries}/ae350_ax45mp.dtb"
      }
    }
  }

  # genimage_sdcard.cfg:21: partition rootfs
  partition "rootfs" {
    type     = "0x83"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
