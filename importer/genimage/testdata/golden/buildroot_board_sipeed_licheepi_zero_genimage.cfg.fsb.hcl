# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:18: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "504KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:25: partition boot, image boot.vfat (vfat, line 1)
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
      file "/sun8i-v3s-licheepi-zero-dock.dtb" {
        source = "${var.binaries}/sun8i-v3s-licheepi-zero-dock.dtb"
      }
      # genimage.cfg:6
      file "/sun8i-v3s-licheepi-zero.dtb" {
        source = "${var.binaries}/sun8i-v3s-licheepi-zero.dtb"
      }
      # genimage.cfg:7
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:31: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
