# Imported from test_rawcopy_plugin.wks.in (wks) by fsbench import. Each block names the line it comes from.
# NOTE test_rawcopy_plugin.wks.in:6: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED test_rawcopy_plugin.wks.in:3: --source: wic's bootimg_pcbios installs a boot loader (grub-efi, systemd-boot, syslinux) and the kernel; fsbench makes the partition empty: give the files as contents, or fsbench's boot block
# NOTE test_rawcopy_plugin.wks.in:4: --source: wic sizes the partition to the file's KiB, fsbench to the file's size rounded up to the alignment
# NOTE test_rawcopy_plugin.wks.in:4: --use-uuid: fsbench writes root= and fstab from the board's root_by and the filesystems' mountpoint and mount options; set those

variable "boot_kib" {
  description = "du --apparent-size -ks of the files the boot loader's plugin stages, as wic measures them"
}

variable "deploy_dir" {
  description = "DEPLOY_DIR_IMAGE, where wic's rawcopy reads its files"
}

variable "image_link_name_core_image_minimal" {
  description = "the bitbake variable IMAGE_LINK_NAME_CORE_IMAGE_MINIMAL, which wic expands in the file"
}

# test_rawcopy_plugin.wks.in:6: the kernel's command line
board "board" {
  kernel_args = ["console=ttyS0,115200n8"]
}

# test_rawcopy_plugin.wks.in:3: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # test_rawcopy_plugin.wks.in:3: part /boot --active --source bootimg_pcbios
  partition "boot" {
    size     = (var.boot_kib + max(0 - var.boot_kib, 16384)) * 1024
    type     = "0x0c"
    bootable = true
    filesystem {
      type  = "vfat"
      label = "boot"
    }
  }

  # test_rawcopy_plugin.wks.in:4: part / --source rawcopy --sourceparams=file=${IMAGE_LINK_NAME_CORE_IMAGE_MINIMAL}.ext4 --use-uuid
  partition "root" {
    type  = "0x0c"
    image = "${var.deploy_dir}/${var.image_link_name_core_image_minimal}.ext4"
  }
}
