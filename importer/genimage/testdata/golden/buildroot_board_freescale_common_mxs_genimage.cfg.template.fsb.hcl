# Imported from genimage.cfg.template (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED genimage.cfg.template:13: files: an entry written in by a script or the environment (%FILES%): import the configuration that script writes

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# genimage.cfg.template:19: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.template:23: partition u-boot
  partition "u-boot" {
    offset = "1MiB"
    size   = "16MiB"
    type   = "0x53"
    image  = "${var.binaries}/u-boot.sd"
  }

  # genimage.cfg.template:30: partition kernel, image boot.vfat (vfat, line 9)
  partition "kernel" {
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

  # genimage.cfg.template:36: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
