# Imported from genimage.cfg.in (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "partuuid" {
  description = "what the board's post-image script writes in place of %PARTUUID% in the configuration"
}

# genimage.cfg.in:1: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg.in:6: partition imx-boot (in-partition-table = false)
  raw "imx-boot" {
    offset = "32KiB"
    file   = "${var.binaries}/flash.bin"
  }

  # genimage.cfg.in:12: partition rootfs
  partition "rootfs" {
    offset = "8MiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    uuid   = var.partuuid
    image  = "${var.binaries}/rootfs.ext4"
  }
}
