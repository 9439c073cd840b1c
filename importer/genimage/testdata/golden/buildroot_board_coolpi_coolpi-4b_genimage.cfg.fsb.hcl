# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:14: image sdcard.img (hdimage)
image "sdcard" {
  table      = "gpt"
  align      = "512B"
  hybrid_mbr = ["boot", "rootfs"]

  # genimage.cfg:19: partition uboot (in-partition-table = false)
  raw "uboot" {
    offset = "32KiB"
    file   = "${var.binaries}/u-boot-rockchip.bin"
  }

  # genimage.cfg:25: partition boot, image boot.vfat (vfat, line 3)
  partition "boot" {
    size     = "32MiB"
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    mbr_type = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:6
      file "/Image.gz" {
        source = "${var.binaries}/Image.gz"
      }
      # genimage.cfg:7
      file "/rk3588s-coolpi-4b.dtb" {
        source = "${var.binaries}/rk3588s-coolpi-4b.dtb"
      }
      # genimage.cfg:8
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
      }
    }
  }

  # genimage.cfg:31: partition rootfs
  partition "rootfs" {
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    mbr_type = "0x83"
    image    = "${var.binaries}/rootfs.ext2"
  }
}
