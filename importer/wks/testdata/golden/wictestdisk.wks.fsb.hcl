# Imported from wictestdisk.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE wictestdisk.wks:5: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

variable "rootfs_size_kib" {
  description = "bitbake's ROOTFS_SIZE in KiB, which wic takes for the root filesystem without --size; 0 when wic runs outside bitbake"
  default     = "0"
}

variable "rootfs" {
  description = "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic"
}

variable "rootfs_kib" {
  description = "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it"
}

# wictestdisk.wks:4: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # wictestdisk.wks:4: part /boot --ondisk sda --label boot --active --align 1024 --size 16
  partition "boot" {
    size     = "16MiB"
    align    = "1MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  # wictestdisk.wks:5: part / --source rootfs --ondisk sda --fstype=ext4 --label platform --align 1024 --use-uuid
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0x83"
    filesystem {
      type  = "ext4"
      label = "platform"
    }
    contents {
      dir = var.rootfs
    }
  }
}
