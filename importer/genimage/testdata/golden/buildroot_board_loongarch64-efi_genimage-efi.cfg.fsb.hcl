# Imported from genimage-efi.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage-efi.cfg:14: image disk.img (hdimage)
image "disk" {
  table = "gpt"
  align = "512B"

  # genimage-efi.cfg:19: partition boot, image efi-part.vfat (vfat, line 1)
  partition "boot" {
    offset   = "32KiB"
    size     = "64MiB"
    type     = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    bootable = true
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage-efi.cfg:3
      file "/EFI" {
        source = "${var.binaries}/efi-part/EFI"
      }
      # genimage-efi.cfg:6
      file "/vmlinux.efi" {
        source = "${var.binaries}/vmlinux.efi"
      }
    }
  }

  # genimage-efi.cfg:26: partition root
  partition "root" {
    type  = "77055800-792c-4f94-b39a-98c91b762bb6"
    image = "${var.binaries}/rootfs.ext2"
  }
}
