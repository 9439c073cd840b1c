# Imported from include.cfg (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED parts/loader.cfg:9: exec-pre: fsbench runs no command of the spec's; run it in the build system's post-image step, before or after fsbench build
# NOT IMPORTED include.cfg:37: read-only: fsbench sets no GPT attribute bits but the legacy BIOS bootable one; set the bit after the build (sgdisk -A)

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "spl" {
  description = "the environment variable SPL, which genimage expands in its configuration"
  default     = "u-boot-sunxi-with-spl.bin"
}

# include.cfg:4: image sd card.img (hdimage)
image "sd-card" {
  table        = "gpt"
  size         = "256MiB"
  align        = "512B"
  disk_id      = "9c3b4c5e-8c1f-4a6e-9d0b-2f6f3b0c9a11"
  gpt_location = "1MiB"
  hybrid_mbr   = ["boot-----not-a-comment"]

  # include.cfg:12: partition spl (in-partition-table = false)
  raw "spl" {
    offset = "8KiB"
    file   = var.spl
    holes = [{
      offset = 440
      size   = 72
      }, {
      offset = 512
      size   = 512
    }]
  }

  # include.cfg:19: partition boot"}?# not a comment, image boot.vfat (vfat, line 2)
  partition "boot-----not-a-comment" {
    size     = "32MiB"
    type     = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    mbr_type = "0x0c"
    label    = "boot\"}\n# not a comment"
    uuid     = "0d2ec0c2-5e34-4a6b-8c17-9ab6e35d2c11"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "BOOT"
    }
    contents {
      # parts/loader.cfg:5
      file "/Image" {
        source = "${var.binaries}/Image"
      }
      # parts/loader.cfg:5
      file "/overlays" {
        source = "${var.binaries}/rpi-firmware/overlays"
      }
      # parts/loader.cfg:6
      file "/extlinux/extlinux.conf" {
        source = "${var.binaries}/extlinux.conf"
      }
    }
  }

  # include.cfg:27: partition rootfs
  partition "rootfs" {
    grow  = true
    type  = "b921b045-1df0-41c3-af44-4c6f280d3fae"
    image = "${var.binaries}/rootfs.ext4"
  }

  # include.cfg:33: partition data
  partition "data" {
    offset = "128MiB"
    size   = "16MiB"
    type   = "0fc63daf-8483-4772-8e79-3d69d8477de4"
  }
}
