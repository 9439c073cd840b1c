# Imported from genimage.cfg.in (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "partuuid" {
  description = "what the board's post-image script writes in place of %PARTUUID% in the configuration"
}

# genimage.cfg.in:15: image disk.img (hdimage)
image "disk" {
  table = "gpt"
  align = "512B"

  # genimage.cfg.in:20: partition boot, image efi-part.vfat (vfat, line 1)
  partition "boot" {
    offset   = "32KiB"
    size     = "16352KiB"
    type     = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg.in:3
      file "/EFI" {
        source = "${var.binaries}/efi-part/EFI"
      }
      # genimage.cfg.in:7
      file "/bzImage" {
        source = "${var.binaries}/bzImage"
      }
    }
  }

  # genimage.cfg.in:27: partition root
  partition "root" {
    type  = "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
    uuid  = var.partuuid
    image = "${var.binaries}/rootfs.ext2"
  }
}
