# Imported from test_efi_plugin.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE test_efi_plugin.wks:5: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED test_efi_plugin.wks:2: --source: wic's bootimg_efi installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE test_efi_plugin.wks:2: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those
# NOTE test_efi_plugin.wks:3: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

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

# test_efi_plugin.wks:5: the kernel's command line
board "board" {
  kernel_args = ["console=ttyS0,115200n8"]
}

# test_efi_plugin.wks:2: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # test_efi_plugin.wks:2: part /boot --source bootimg_efi --sourceparams=loader=systemd-boot --active --align 1024 --use-uuid
  partition "boot" {
    size     = (var.boot_kib + max(0 - var.boot_kib, 16384)) * 1024
    align    = "1MiB"
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  # test_efi_plugin.wks:3: part / --source rootfs --fstype=ext4 --align 1024 --use-uuid --label root
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
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
