# Imported from mkefidisk.wks (wks) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED mkefidisk.wks:11: --append: arguments from bitbake variables (rootfstype=ext4 console=${KERNEL_CONSOLE} console=tty0): give the board's kernel_args the values
# NOTE mkefidisk.wks:11: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED mkefidisk.wks:5: --source: wic's bootimg_efi installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE mkefidisk.wks:7: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

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

# mkefidisk.wks:5: the disk wic writes
image "disk" {
  table = "gpt"
  align = "512B"

  # mkefidisk.wks:5: part /boot --source bootimg_efi --sourceparams=loader=grub-efi --ondisk sda --label msdos --active --align 1024
  partition "boot" {
    size     = (var.boot_kib + max(0 - var.boot_kib, 16384)) * 1024
    align    = "1MiB"
    type     = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
    label    = "msdos"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "msdos"
    }
  }

  # mkefidisk.wks:7: part / --source rootfs --ondisk sda --fstype=ext4 --label platform --align 1024 --use-uuid
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "platform"
    filesystem {
      type  = "ext4"
      label = "platform"
    }
    contents {
      dir = var.rootfs
    }
  }

  # mkefidisk.wks:9: part swap --ondisk sda --size 44 --label swap1 --fstype=swap
  partition "swap" {
    size  = "44MiB"
    type  = "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f"
    label = "swap1"
  }
}
