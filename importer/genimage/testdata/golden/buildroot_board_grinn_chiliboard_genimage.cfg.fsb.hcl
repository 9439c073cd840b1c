# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:17: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:21: partition u-boot, image boot.vfat (vfat, line 4)
  partition "u-boot" {
    offset   = "1MiB"
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:7
      file "/MLO" {
        source = "${var.binaries}/MLO"
      }
      # genimage.cfg:8
      file "/u-boot.img" {
        source = "${var.binaries}/u-boot.img"
      }
      # genimage.cfg:9
      file "/am335x-chiliboard.dtb" {
        source = "${var.binaries}/am335x-chiliboard.dtb"
      }
      # genimage.cfg:10
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
    }
  }

  # genimage.cfg:28: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
