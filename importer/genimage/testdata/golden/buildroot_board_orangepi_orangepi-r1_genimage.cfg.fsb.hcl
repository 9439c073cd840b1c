# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:15: image sdcard.img (hdimage)
image "sdcard" {
  table        = "gpt"
  align        = "512B"
  gpt_location = "1MiB"

  # genimage.cfg:23: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "1016KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:30: partition boot, image boot.vfat (vfat, line 3)
  partition "boot" {
    size     = "10MiB"
    type     = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:6
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:7
      file "/sun8i-h2-plus-orangepi-r1.dtb" {
        source = "${var.binaries}/sun8i-h2-plus-orangepi-r1.dtb"
      }
      # genimage.cfg:8
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:38: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/rootfs.ext4"
  }
}
