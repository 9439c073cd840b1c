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
    size     = "20MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/uImage" {
        source = "${var.binaries}/uImage"
      }
      # genimage.cfg:7
      file "/uboot.env" {
        source = "${var.binaries}/uboot-env.bin"
      }
    }
  }

  # genimage.cfg:25: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
