# Imported from sdimage-bootpart.wks (wks) by fsbench import. Each block names the line it comes from.

variable "boot_dir" {
  description = "the directory of the boot files wic's bootimg-partition copies: IMAGE_BOOT_FILES of DEPLOY_DIR_IMAGE, as the files' names in the partition"
}

variable "boot_kib" {
  description = "du --apparent-size -ks of those boot files, as wic measures them"
}

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

# sdimage-bootpart.wks:5: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # sdimage-bootpart.wks:5: part /boot --source bootimg_partition --ondisk mmcblk0 --fstype=vfat --label boot --active --align 4 --size 16
  partition "boot" {
    size     = floor((var.boot_kib + max(16384 - var.boot_kib, 10240)) * 1.3) * 1024
    align    = "4KiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
    contents {
      dir = var.boot_dir
    }
  }

  # sdimage-bootpart.wks:6: part / --source rootfs --ondisk mmcblk0 --fstype=ext4 --label root --align 4
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "4KiB"
    type  = "0x83"
    filesystem {
      type  = "ext4"
      label = "root"
    }
    contents {
      dir = var.rootfs
    }
  }
}
