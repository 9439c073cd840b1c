# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "partuuid" {
  description = "what the board's post-image script writes in place of %PARTUUID% in the configuration"
}

# genimage.cfg:1: image sdcard-emmc.img (hdimage)
image "sdcard-emmc" {
  table        = "gpt"
  align        = "512B"
  gpt_location = "16KiB"

  # genimage.cfg:7: partition rcw (in-partition-table = false)
  raw "rcw" {
    offset = "4KiB"
    file   = "${var.binaries}/rcw.bin"
  }

  # genimage.cfg:13: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "1MiB"
    file   = "${var.binaries}/u-boot.rom"
  }

  # genimage.cfg:19: partition rootfs
  partition "rootfs" {
    offset = "4MiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    uuid   = var.partuuid
    image  = "${var.binaries}/rootfs.ext4"
  }
}
