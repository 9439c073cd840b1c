# Imported from genimage.cfg.template_spl (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED genimage.cfg.template_spl:14: files: an entry written in by a script or the environment (%FILES%): import the configuration that script writes

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "ubootbin" {
  description = "what the board's post-image script writes in place of %UBOOTBIN% in the configuration"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# genimage.cfg.template_spl:20: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.template_spl:24: partition spl (in-partition-table = false)
  raw "spl" {
    offset = "1KiB"
    file   = "${var.binaries}/SPL"
  }

  # genimage.cfg.template_spl:30: partition u-boot (in-partition-table = false)
  raw "u-boot" {
    offset = "69KiB"
    file   = "${var.binaries}/${var.ubootbin}"
  }

  # genimage.cfg.template_spl:36: partition boot, image boot.vfat (vfat, line 10)
  partition "boot" {
    offset   = "8MiB"
    size     = "16MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
    contents {
      dir = var.rootpath
    }
  }

  # genimage.cfg.template_spl:43: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
