# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg:5: partition uboot-spl (in-partition-table = false)
  raw "uboot-spl" {
    offset = "512B"
    file   = "${var.binaries}/u-boot-spl.bin"
  }

  # genimage.cfg:11: partition uboot (in-partition-table = false)
  raw "uboot" {
    offset = "14KiB"
    file   = "${var.binaries}/u-boot.img"
  }

  # genimage.cfg:17: partition uboot-env (in-partition-table = false)
  raw "uboot-env" {
    offset = "526KiB"
    file   = "${var.binaries}/uboot-env.bin"
  }

  # genimage.cfg:23: partition rootfs
  partition "rootfs" {
    offset = "2MiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext4"
  }
}
