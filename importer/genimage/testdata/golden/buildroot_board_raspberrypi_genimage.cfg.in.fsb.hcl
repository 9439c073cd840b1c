# Imported from genimage.cfg.in (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# genimage.cfg.in:11: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.in:15: partition boot, image boot.vfat (vfat, line 1)
  partition "boot" {
    size     = "32MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      dir = var.rootpath
    }
  }

  # genimage.cfg.in:21: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext4"
  }
}
