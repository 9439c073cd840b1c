# Imported from genimage.cfg.template_no_boot_part_spl (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "ubootbin" {
  description = "what the board's post-image script writes in place of %UBOOTBIN% in the configuration"
}

# genimage.cfg.template_no_boot_part_spl:10: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.template_no_boot_part_spl:14: partition spl (in-partition-table = false)
  raw "spl" {
    offset = "1KiB"
    file   = "${var.binaries}/SPL"
  }

  # genimage.cfg.template_no_boot_part_spl:20: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "69KiB"
    file   = "${var.binaries}/${var.ubootbin}"
  }

  # genimage.cfg.template_no_boot_part_spl:26: partition rootfs
  partition "rootfs" {
    offset = "8MiB"
    type   = "0x83"
    image  = "${var.binaries}/rootfs.ext2"
  }
}
