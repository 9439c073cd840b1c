# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:22: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:26: partition SPL (in-partition-table = false)
  raw "SPL" {
    offset = "1KiB"
    file   = "${var.binaries}/SPL"
  }

  # genimage.cfg:32: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "69KiB"
    file   = "${var.binaries}/u-boot.img"
  }

  # genimage.cfg:38: partition boot, image boot.vfat (vfat, line 11)
  partition "boot" {
    offset   = "8MiB"
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:14
      file "/imx6ul-liteboard.dtb" {
        source = "${var.binaries}/imx6ul-liteboard.dtb"
      }
      # genimage.cfg:15
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
    }
  }

  # genimage.cfg:45: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
