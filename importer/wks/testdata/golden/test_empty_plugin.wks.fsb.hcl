# Imported from test_empty_plugin.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE test_empty_plugin.wks:3: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

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

# test_empty_plugin.wks:3: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # test_empty_plugin.wks:3: part / --source rootfs --fstype=ext4 --align 1024 --use-uuid
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0x83"
    filesystem {
      type = "ext4"
    }
    contents {
      dir = var.rootfs
    }
  }

  # test_empty_plugin.wks:4: part empty --source empty --ondisk sda --size 1024 --align 1024
  partition "empty" {
    size  = "1GiB"
    align = "1MiB"
    type  = "0x0c"
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }
}
