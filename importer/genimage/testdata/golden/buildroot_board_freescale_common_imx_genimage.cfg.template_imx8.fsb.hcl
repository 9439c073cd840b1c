# Imported from genimage.cfg.template_imx8 (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED genimage.cfg.template_imx8:27: offset: a size written in by a script or the environment (%IMXOFFSET%): import the configuration that script writes, or give the size
# NOT IMPORTED genimage.cfg.template_imx8:27: offset: a size written in by a script or the environment (%IMXOFFSET%): import the configuration that script writes, or give the size
# NOT IMPORTED genimage.cfg.template_imx8:14: files: an entry written in by a script or the environment (%FILES%): import the configuration that script writes

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# genimage.cfg.template_imx8:20: image sdcard.img (hdimage)
image "sdcard" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage.cfg.template_imx8:24: partition imx-boot (in-partition-table = false)
  raw "imx-boot" {
    offset = 0
    file   = "${var.binaries}/imx8-boot-sd.bin"
  }

  # genimage.cfg.template_imx8:30: partition boot, image boot.vfat (vfat, line 10)
  partition "boot" {
    offset   = "8MiB"
    size     = "64MiB"
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

  # genimage.cfg.template_imx8:37: partition rootfs
  partition "rootfs" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
