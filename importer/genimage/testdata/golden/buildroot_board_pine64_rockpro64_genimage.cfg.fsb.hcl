# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:13: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:18: partition loader1
  partition "loader1" {
    offset = "32KiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image  = "${var.binaries}/idbloader.img"
  }

  # genimage.cfg:23: partition loader2
  partition "loader2" {
    offset = "8MiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image  = "${var.binaries}/u-boot.itb"
  }

  # genimage.cfg:28: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    offset   = "16MiB"
    size     = "64MiB"
    type     = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
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
      file "/rk3399-rockpro64.dtb" {
        source = "${var.binaries}/rk3399-rockpro64.dtb"
      }
      # genimage.cfg:6
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:35: partition rootfs
  partition "rootfs" {
    type  = "b921b045-1df0-41c3-af44-4c6f280d3fae"
    image = "${var.binaries}/rootfs.ext4"
  }
}
