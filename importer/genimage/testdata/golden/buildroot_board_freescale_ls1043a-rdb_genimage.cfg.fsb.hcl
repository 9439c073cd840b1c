# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:5: partition fsbl (in-partition-table = false)
  raw "fsbl" {
    offset = "4KiB"
    file   = "${var.binaries}/bl2_sd.pbl"
  }

  # genimage.cfg:11: partition ssbl (in-partition-table = false)
  raw "ssbl" {
    offset = "1MiB"
    file   = "${var.binaries}/fip.bin"
  }

  # genimage.cfg:17: partition fman (in-partition-table = false)
  raw "fman" {
    offset = "9MiB"
    file   = "${var.binaries}/fsl_fman_ucode_ls1043_r1.1_108_4_9.bin"
  }

  # genimage.cfg:23: partition rootfs
  partition "rootfs" {
    offset   = "16MiB"
    type     = "0x83"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
