# Imported from genimage.cfg.template (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "atfbin" {
  description = "what the board's post-image script writes in place of %ATFBIN% in the configuration"
}

# genimage.cfg.template:1: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg.template:6: partition fsbl1
  partition "fsbl1" {
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/${var.atfbin}"
  }

  # genimage.cfg.template:10: partition fsbl2
  partition "fsbl2" {
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/${var.atfbin}"
  }

  # genimage.cfg.template:14: partition fip
  partition "fip" {
    size  = "2MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/fip.bin"
  }

  # genimage.cfg.template:19: partition rootfs
  partition "rootfs" {
    type     = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    bootable = true
    image    = "${var.binaries}/rootfs.ext4"
  }
}
