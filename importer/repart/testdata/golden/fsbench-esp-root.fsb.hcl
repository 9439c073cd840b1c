# Imported from fsbench-esp-root (repart) by fsbench import. Each block names the line it comes from.
# NOTE 10-root.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition

variable "root" {
  description = "the directory systemd-repart copies CopyFiles= from: its --root, the image --image names, the build's root filesystem (mkosi's, Yocto's IMAGE_ROOTFS)"
}

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "197652KiB"
}

# 00-esp.conf:2: the disk systemd-repart --empty=create writes, in the order of the files' names: 00-esp.conf, 10-root.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # 00-esp.conf:2: 00-esp.conf, Type=esp
  partition "00-esp" {
    offset = "1MiB"
    size   = "64MiB"
    type   = "esp"
    label  = "esp"
    filesystem {
      type  = "vfat"
      label = "ESP"
    }
    contents {
      dir = "${var.root}/boot"
    }
  }

  # 10-root.conf:1: 10-root.conf, Type=root-x86-64
  # takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least 128MiB
  partition "10-root" {
    grow  = true
    type  = "root-x86-64"
    label = "root-x86-64"
    filesystem {
      type  = "ext4"
      label = "root-x86-64"
    }
    contents {
      dir = var.root
    }
  }
}
