# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:15: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:19: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "8MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/MLO" {
        source = "${var.binaries}/MLO"
      }
      # genimage.cfg:5
      file "/u-boot.img" {
        source = "${var.binaries}/u-boot.img"
      }
      # genimage.cfg:6
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:7
      file "/omap5-uevm.dtb" {
        source = "${var.binaries}/omap5-uevm.dtb"
      }
      # genimage.cfg:8
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:25: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
