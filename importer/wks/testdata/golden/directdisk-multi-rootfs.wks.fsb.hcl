# Imported from directdisk-multi-rootfs.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE directdisk-multi-rootfs.wks:22: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED directdisk-multi-rootfs.wks:18: --source: wic's bootimg_pcbios installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE directdisk-multi-rootfs.wks:19: --rootfs-dir: the directory rootfs1 is the variable rootfs1
# NOTE directdisk-multi-rootfs.wks:20: --rootfs-dir: the directory rootfs2 is the variable rootfs2

variable "boot_kib" {
  description = "du --apparent-size -ks of the files the boot loader's plugin stages, as wic measures them"
}

variable "rootfs1" {
  description = "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic"
}

variable "rootfs1_kib" {
  description = "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it"
}

variable "rootfs2" {
  description = "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic"
}

variable "rootfs2_kib" {
  description = "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it"
}

# directdisk-multi-rootfs.wks:22: the kernel's command line
board "board" {
  kernel_args = ["rootwait", "rootfstype=ext4", "video=vesafb", "vga=0x318", "console=tty0", "console=ttyS0,115200n8"]
}

# directdisk-multi-rootfs.wks:18: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # directdisk-multi-rootfs.wks:18: part /boot --source bootimg_pcbios --ondisk sda --label boot --active --align 1024
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

  # directdisk-multi-rootfs.wks:19: part / --source rootfs --rootfs-dir=rootfs1 --ondisk sda --fstype=ext4 --label platform --align 1024
  partition "root" {
    size  = floor((var.rootfs1_kib + max(0 - var.rootfs1_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0x83"
    filesystem {
      type  = "ext4"
      label = "platform"
    }
    contents {
      dir = var.rootfs1
    }
  }

  # directdisk-multi-rootfs.wks:20: part /rescue --source rootfs --rootfs-dir=rootfs2 --ondisk sda --fstype=ext4 --label secondary --align 1024
  partition "rescue" {
    size  = floor((var.rootfs2_kib + max(0 - var.rootfs2_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0x83"
    filesystem {
      type  = "ext4"
      label = "secondary"
    }
    contents {
      dir = var.rootfs2
    }
  }
}
