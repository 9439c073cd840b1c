# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:16: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:21: partition uboot
  partition "uboot" {
    type  = "21686148-6449-6e6f-744e-656564454649"
    image = "${var.binaries}/payload.bin"
  }

  # genimage.cfg:26: partition kernel, image boot.vfat (vfat, line 3)
  partition "kernel" {
    size     = "60MiB"
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:6
      file "/mpfs_icicle.itb" {
        source = "${var.binaries}/mpfs_icicle.itb"
      }
      # genimage.cfg:9
      file "/boot.scr" {
        source = "${var.binaries}/boot.scr"
      }
    }
  }

  # genimage.cfg:31: partition root
  partition "root" {
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/rootfs.ext4"
  }
}
