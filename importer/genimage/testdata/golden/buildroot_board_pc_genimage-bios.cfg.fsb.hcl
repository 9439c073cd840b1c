# Imported from genimage-bios.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage-bios.cfg:1: image disk.img (hdimage)
image "disk" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"

  # genimage-bios.cfg:5: partition boot (in-partition-table = false)
  raw "boot" {
    offset = 0
    size   = "512B"
    file   = "${var.binaries}/boot.img"
    holes = [{
      offset = 440
      size   = 72
    }]
  }

  # genimage-bios.cfg:13: partition grub (in-partition-table = false)
  raw "grub" {
    offset = "512B"
    file   = "${var.binaries}/grub.img"
  }

  # genimage-bios.cfg:19: partition root
  partition "root" {
    type  = "0x83"
    image = "${var.binaries}/rootfs.ext2"
  }
}
