# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:15: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:19: partition boot, image boot.vfat (vfat, line 3)
  partition "boot" {
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:6
      file "/boot.bin" {
        source = "${var.binaries}/boot.bin"
      }
      # genimage.cfg:7
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:8
      file "/at91-sama5d3_acqua.dtb" {
        source = "${var.binaries}/at91-sama5d3_acqua.dtb"
      }
    }
  }

  # genimage.cfg:25: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
