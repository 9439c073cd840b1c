# Imported from efi-uki-bootdisk.wks.in (wks) by fsbench import. Each block names the line it comes from.
# NOTE efi-uki-bootdisk.wks.in:1: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED efi-uki-bootdisk.wks.in:2: --source: wic's bootimg_efi installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE efi-uki-bootdisk.wks.in:2: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those
# NOT IMPORTED efi-uki-bootdisk.wks.in:3: --exclude-path: fsbench copies a contents directory whole: give the partition a directory that holds what wic would copy

variable "boot_kib" {
  description = "du --apparent-size -ks of the files the boot loader's plugin stages, as wic measures them"
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

# efi-uki-bootdisk.wks.in:2: the disk wic writes
image "disk" {
  table = "gpt"
  align = "512B"

  # efi-uki-bootdisk.wks.in:2: part /boot --source bootimg_efi --sourceparams=loader=${EFI_PROVIDER} --label boot --active --align 1024 --use-uuid --part-name=ESP --part-type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B --overhead-factor=1
  partition "boot" {
    size     = (var.boot_kib + max(0 - var.boot_kib, 16384)) * 1024
    align    = "1MiB"
    type     = "c12a7328-f81f-11d2-ba4b-00a0c93ec93b"
    label    = "ESP"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  # efi-uki-bootdisk.wks.in:3: part / --source rootfs --fstype=ext4 --label root --align 1024 --exclude-path boot/
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
