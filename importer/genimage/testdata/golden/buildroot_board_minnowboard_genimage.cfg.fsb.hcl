# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

# genimage.cfg:18: image sdcard.img (hdimage)
image "sdcard" {
  table = "gpt"
  align = "512B"

  # genimage.cfg:23: partition boot, image efi-part.vfat (vfat, line 2)
  partition "boot" {
    size = "10MiB"
    type = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    filesystem {
      type = "vfat"
    }
    contents {
      # genimage.cfg:4
      file "/EFI" {
        source = "${var.binaries}/efi-part/EFI"
      }
      # genimage.cfg:7
      file "/bzImage" {
        source = "${var.binaries}/bzImage"
      }
    }
  }

  # genimage.cfg:28: partition rootfs
  partition "rootfs" {
    size  = "512MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    image = "${var.binaries}/rootfs.ext4"
  }
}
