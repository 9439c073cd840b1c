# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:16: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:20: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "1016KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:27: partition boot, image boot.vfat (vfat, line 4)
  partition "boot" {
    offset   = "1MiB"
    size     = "10MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:7
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:8
      file "/sun7i-a20-icnova-a20-adb4006.dtb" {
        source = "${var.binaries}/sun7i-a20-icnova-a20-adb4006.dtb"
      }
      # genimage.cfg:9
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:33: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
