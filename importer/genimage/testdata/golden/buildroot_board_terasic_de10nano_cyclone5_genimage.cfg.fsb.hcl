# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:23: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:27: partition spl
  partition "spl" {
    size  = "1MiB"
    type  = "0xa2"
    image = "${var.binaries}/barebox-socfpga-de10_nano-xload.img"
  }

  # genimage.cfg:33: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "8MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:3
      file "/zImage" {
        source = "${var.binaries}/zImage"
      }
      # genimage.cfg:7
      file "/socfpga_cyclone5_de0_nano_soc.dtb" {
        source = "${var.binaries}/socfpga_cyclone5_de0_nano_soc.dtb"
      }
      # genimage.cfg:11
      file "/barebox.bin" {
        source = "${var.binaries}/barebox-socfpga-de10_nano.img"
      }
      # genimage.cfg:15
      file "/barebox.env" {
        source = "${var.binaries}/barebox-env"
      }
    }
  }

  # genimage.cfg:39: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
