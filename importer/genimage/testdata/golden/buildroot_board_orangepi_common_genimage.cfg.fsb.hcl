# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "partuuid" {
  description = "what the board's post-image script writes in place of %PARTUUID% in the configuration"
}

# genimage.cfg:1: image sdcard.img (hdimage)
image "sdcard" {
  table        = "gpt"
  align        = "512B"
  gpt_location = "1008KiB"
  gpt_backup   = false

  # genimage.cfg:2: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "8KiB"
    size   = "1000KiB"
    file   = "${var.binaries}/u-boot-sunxi-with-spl.bin"
  }

  # genimage.cfg:15: partition rootfs
  partition "rootfs" {
    offset = "1MiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    uuid   = var.partuuid
    image  = "${var.binaries}/rootfs.ext4"
  }
}
