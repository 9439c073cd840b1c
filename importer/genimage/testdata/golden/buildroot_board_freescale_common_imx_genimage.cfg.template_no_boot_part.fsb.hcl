# Imported from genimage.cfg.template_no_boot_part (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "ubootbin" {
  description = "what the board's post-image script writes in place of %UBOOTBIN% in the configuration"
}

# genimage.cfg.template_no_boot_part:1: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.template_no_boot_part:5: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "1KiB"
    file   = "${var.binaries}/${var.ubootbin}"
  }

  # genimage.cfg.template_no_boot_part:11: partition rootfs
  partition "rootfs" {
    offset = "8MiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext2"
  }
}
