# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:13: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:17: partition bl1 (in-partition-table = false)
  raw "bl1" {
    offset = 0
    file   = "${var.binaries}/bl1.bin.hardkernel"
    holes = [{
      offset = 440
      size   = 72
    }]
  }

  # genimage.cfg:24: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "49664B"
    file   = "${var.binaries}/uboot-odc2.img"
  }

  # genimage.cfg:30: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "64MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/Image" {
        source = "${var.binaries}/Image"
      }
      # genimage.cfg:5
      file "/meson-gxbb-odroidc2.dtb" {
        source = "${var.binaries}/meson-gxbb-odroidc2.dtb"
      }
      # genimage.cfg:6
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:36: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
