# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:13: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:17: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "504KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:24: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    offset   = "512KiB"
    size     = "8MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:5
      file "/sun8i-s3-pinecube.dtb" {
        source = "${var.binaries}/sun8i-s3-pinecube.dtb"
      }
      # genimage.cfg:6
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:30: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
