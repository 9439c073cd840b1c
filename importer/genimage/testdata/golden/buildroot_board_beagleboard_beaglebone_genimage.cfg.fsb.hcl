# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:23: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:27: partition u-boot, image boot.vfat (vfat, line 1)
  partition "u-boot" {
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/MLO" {
        source = "${var.binaries}/MLO"
      }
      # genimage.cfg:5
      file "/u-boot.img" {
        source = "${var.binaries}/u-boot.img"
      }
      # genimage.cfg:6
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:7
      file "/uEnv.txt" {
        source = "${var.binaries}/uEnv.txt"
      }
      # genimage.cfg:8
      file "/am335x-evm.dtb" {
        source = "${var.binaries}/am335x-evm.dtb"
      }
      # genimage.cfg:9
      file "/am335x-evmsk.dtb" {
        source = "${var.binaries}/am335x-evmsk.dtb"
      }
      # genimage.cfg:10
      file "/am335x-bone.dtb" {
        source = "${var.binaries}/am335x-bone.dtb"
      }
      # genimage.cfg:11
      file "/am335x-boneblack.dtb" {
        source = "${var.binaries}/am335x-boneblack.dtb"
      }
      # genimage.cfg:12
      file "/am335x-bonegreen.dtb" {
        source = "${var.binaries}/am335x-bonegreen.dtb"
      }
      # genimage.cfg:13
      file "/am335x-boneblack-wireless.dtb" {
        source = "${var.binaries}/am335x-boneblack-wireless.dtb"
      }
      # genimage.cfg:14
      file "/am335x-bonegreen-wireless.dtb" {
        source = "${var.binaries}/am335x-bonegreen-wireless.dtb"
      }
      # genimage.cfg:15
      file "/am335x-bonegreen-eco.dtb" {
        source = "${var.binaries}/am335x-bonegreen-eco.dtb"
      }
      # genimage.cfg:16
      file "/extlinux" {
        source = "${var.binaries}/extlinux"
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
