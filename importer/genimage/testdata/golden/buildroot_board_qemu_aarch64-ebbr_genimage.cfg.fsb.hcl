# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:15: image disk.img (hdimage)
image "disk" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:20: partition boot, image efi-part.vfat (vfat, line 1)
  partition "boot" {
    offset   = "32KiB"
    size     = "128MiB"
    type     = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:3
      file "/EFI" {
        source = "${var.binaries}/efi-part/EFI"
      }
      # genimage.cfg:7
      file "/Image" {
        source = "${var.binaries}/Image"
      }
    }
  }

  # genimage.cfg:27: partition root
  partition "root" {
    type  = "b921b045-1df0-41c3-af44-4c6f280d3fae"
    image = "${var.binaries}/rootfs.ext2"
  }
}
