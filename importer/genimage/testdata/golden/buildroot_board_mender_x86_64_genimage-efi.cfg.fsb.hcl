# Imported from genimage-efi.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage-efi.cfg:17: image disk.img (hdimage)
image "disk" {
  table = "gpt"
  align = "512B"

  # genimage-efi.cfg:22: partition boot, image efi-part.vfat (vfat, line 1)
  partition "boot" {
    offset   = "32KiB"
    size     = "16MiB"
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
      file "/grub-mender-grubenv" {
        source = "${var.binaries}/efi-part/grub-mender-grubenv"
      }
      # genimage-efi.cfg:9
      file "/bzImage" {
        source = "${var.binaries}/bzImage"
      }
    }
  }

  # genimage-efi.cfg:29: partition roota
  partition "roota" {
    type  = "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
    image = "${var.binaries}/rootfs.ext2"
  }

  # genimage-efi.cfg:34: partition rootb
  partition "rootb" {
    type  = "4f68bce3-e8cd-4db1-96e7-fbcaf984b709"
    image = "${var.binaries}/rootfs.ext2"
  }

  # genimage-efi.cfg:39: partition data
  partition "data" {
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/data-part.ext4"
  }
}
