# Imported from genimage.cfg.in (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED genimage.cfg.in:4: disk-signature: a signature written in by a script or the environment: give the spec disk_id = "0x........" yourself

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg.in:1: image disk.img (hdimage)
image "disk" {
  table = "mbr"
  align = "512B"

  # genimage.cfg.in:7: partition boot
  partition "boot" {
    size = "16MiB"
    type = "0xf0"
  }

  # genimage.cfg.in:12: partition root
  partition "root" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
