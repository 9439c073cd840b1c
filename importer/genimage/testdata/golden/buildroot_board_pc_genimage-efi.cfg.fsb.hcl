# Imported from genimage-efi.cfg (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED genimage-efi.cfg:29: partition-uuid: "UUID_TMP" is not a GUID (a placeholder a script replaces?); genimage refuses it too: give the GUID, or import the configuration the script writes

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage-efi.cfg:15: image disk.img (hdimage)
image "disk" {
  table = "gpt"
  align = "512B"

  # genimage-efi.cfg:20: partition boot, image efi-part.vfat (vfat, line 1)
  partition "boot" {
    offset   = "32KiB"
    size     = "16352KiB"
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
      # genimage-efi.cfg:7
      file "/bzImage" {
        source = "${var.binaries}/bzImage"
      }
    }
  }

  # genimage-efi.cfg:27: partition root
  partition "root" {
    type  = "44479540-f297-41b2-9af7-d131d5f0458a"
    image = "${var.binaries}/rootfs.ext2"
  }
}
