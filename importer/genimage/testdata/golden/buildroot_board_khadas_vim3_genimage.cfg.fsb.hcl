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
    offset   = "2MiB"
    size     = "64MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
    contents {
      # genimage.cfg:4
      file "/Image" {
        source = "${var.binaries}/Image"
      }
      # genimage.cfg:5
      file "/meson-g12b-a311d-khadas-vim3.dtb" {
        source = "${var.binaries}/meson-g12b-a311d-khadas-vim3.dtb"
      }
      # genimage.cfg:6
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:27: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
