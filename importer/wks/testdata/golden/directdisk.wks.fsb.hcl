# Imported from directdisk.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE directdisk.wks:7: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED common.wks.inc:2: --source: wic's bootimg_pcbios installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE common.wks.inc:3: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

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

# directdisk.wks:7: the kernel's command line
board "board" {
  kernel_args = ["rootwait", "rootfstype=ext4", "video=vesafb", "vga=0x318", "console=tty0", "console=ttyS0,115200n8"]
}

# common.wks.inc:2: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # common.wks.inc:2: part /boot --source bootimg_pcbios --ondisk sda --label boot --active --align 1024
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

  # common.wks.inc:3: part / --source rootfs --use-uuid --fstype=ext4 --label platform --align 1024
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
