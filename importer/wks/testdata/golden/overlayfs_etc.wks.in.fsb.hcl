# Imported from overlayfs_etc.wks.in (wks) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED overlayfs_etc.wks.in:4: --append: arguments from bitbake variables (rootfstype=${OVERLAYFS_ROOTFS_TYPE} console=ttyS0,115200 console=tty0 ${OVERLAYFS_INIT_OPTION} net.ifnames=0): give the board's kernel_args the values
# NOTE overlayfs_etc.wks.in:4: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED overlayfs_etc.wks.in:1: --source: wic's bootimg_biosplusefi installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOT IMPORTED overlayfs_etc.wks.in:2: --fstype: wic knows no filesystem "${OVERLAYFS_ROOTFS_TYPE}"
# NOTE overlayfs_etc.wks.in:3: --size: an ext filesystem of 5120 KiB has no room for a journal; mke2fs leaves it out for wic, the spec says journal = false

variable "boot_kib" {
  description = "du --apparent-size -ks of the files the boot loader's plugin stages, as wic measures them"
}

# overlayfs_etc.wks.in:1: the disk wic writes
image "disk" {
  table = "gpt"
  align = "512B"

  # overlayfs_etc.wks.in:1: part /boot --active --source bootimg_biosplusefi --ondisk sda --sourceparams=loader=grub-efi --align 1024
  partition "boot" {
    size     = (var.boot_kib + max(0 - var.boot_kib, 16384)) * 1024
    align    = "1MiB"
    type     = "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"
    label    = "primary"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  # overlayfs_etc.wks.in:3: part --ondisk sda --fstype=ext4 --size=5 --align 1024
  partition "part3" {
    size  = "5MiB"
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "primary"
    filesystem {
      type    = "ext4"
      journal = false
    }
  }
}
