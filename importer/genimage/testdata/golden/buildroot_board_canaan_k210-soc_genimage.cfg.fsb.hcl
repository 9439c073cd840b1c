# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:18: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    offset   = "4MiB"
    size     = "4MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:3
      file "/uImage" {
        source = "${var.binaries}/uImage"
      }
      # genimage.cfg:7
      file "/k210.dtb" {
        source = "${var.binaries}/k210.dtb"
      }
    }
  }

  # genimage.cfg:25: partition rootfs
  partition "rootfs" {
    size  = "64MiB"
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
