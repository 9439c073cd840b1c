# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0xfeedc0de"

  # genimage.cfg:20: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "32MiB"
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
      # genimage.cfg:5
      file "/meson-gxbb-nexbox-a95x.dtb" {
        source = "${var.binaries}/meson-gxbb-nexbox-a95x.dtb"
      }
      # genimage.cfg:6
      file "/meson-gxl-s905x-nexbox-a95x.dtb" {
        source = "${var.binaries}/meson-gxl-s905x-nexbox-a95x.dtb"
      }
      # genimage.cfg:7
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:26: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
