# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:18: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:22: partition u-boot, image boot.vfat (vfat, line 1)
  partition "u-boot" {
    size     = "64MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
    contents {
      # genimage.cfg:4
      file "/tiboot3.bin" {
        source = "${var.binaries}/tiboot3.bin"
      }
      # genimage.cfg:5
      file "/tispl.bin" {
        source = "${var.binaries}/tispl.bin"
      }
      # genimage.cfg:6
      file "/u-boot.img" {
        source = "${var.binaries}/u-boot.img"
      }
      # genimage.cfg:7
      file "/Image" {
        source = "${var.binaries}/Image"
      }
      # genimage.cfg:8
      file "/ti" {
        source = "${var.binaries}/ti"
      }
      # genimage.cfg:9
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:28: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
