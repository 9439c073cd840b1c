# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:16: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:20: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "64MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/boot.bin" {
        source = "${var.binaries}/boot.bin"
      }
      # genimage.cfg:5
      file "/system.dtb" {
        source = "${var.binaries}/system.dtb"
      }
      # genimage.cfg:6
      file "/Image" {
        source = "${var.binaries}/Image"
      }
      # genimage.cfg:8
      file "/extlinux/extlinux.conf" {
        source = "${var.binaries}/extlinux.conf"
      }
    }
  }

  # genimage.cfg:26: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
