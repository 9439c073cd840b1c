# Imported from efi-bootdisk.wks.in (wks) by fsbench import. Each block names the line it comes from.
# NOTE efi-bootdisk.wks.in:2: --rootfs-dir: the directory ${IMAGE_ROOTFS}/boot is the variable rootfs_boot
# NOTE efi-bootdisk.wks.in:2: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those
# NOT IMPORTED efi-bootdisk.wks.in:3: --exclude-path: fsbench copies a contents directory whole: give the partition a directory that holds what wic would copy

variable "rootfs_boot" {
  description = "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic"
}

variable "rootfs_boot_kib" {
  description = "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it"
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

# efi-bootdisk.wks.in:2: the disk wic writes
image "disk" {
  table = "gpt"
  align = "512B"

  # efi-bootdisk.wks.in:2: part /boot --source rootfs --rootfs-dir=${IMAGE_ROOTFS}/boot --fstype=vfat --label boot --active --align 1024 --use-uuid --overhead-factor 1.2
  partition "boot" {
    size     = floor((var.rootfs_boot_kib + max(0 - var.rootfs_boot_kib, 10240)) * 1.2) * 1024
    align    = "1MiB"
    type     = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
    label    = "boot"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
    contents {
      dir = var.rootfs_boot
    }
  }

  # efi-bootdisk.wks.in:3: part / --source rootfs --fstype=ext4 --label root --align 1024 --exclude-path boot/
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "root"
    filesystem {
      type  = "ext4"
      label = "root"
    }
    contents {
      dir = var.rootfs
    }
  }
}
