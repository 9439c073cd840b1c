# Imported from test_gpt_partition_name.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE test_gpt_partition_name.wks:3: --size: an ext filesystem of 1024 KiB has no room for a journal; mke2fs leaves it out for wic, the spec says journal = false
# NOTE test_gpt_partition_name.wks:5: --size: an ext filesystem of 1024 KiB has no room for a journal; mke2fs leaves it out for wic, the spec says journal = false

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

# test_gpt_partition_name.wks:3: the disk wic writes
image "disk" {
  table = "gpt"
  align = "512B"

  # test_gpt_partition_name.wks:3: part --fstype=ext4 --part-name boot-A --label boot --size 1M --align 1024
  partition "boot" {
    size  = "1MiB"
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "boot-A"
    filesystem {
      type    = "ext4"
      label   = "boot"
      journal = false
    }
  }

  # test_gpt_partition_name.wks:4: part / --source rootfs --fstype=ext4 --part-name root-A --align 1024
  partition "root" {
    size  = floor((var.rootfs_kib + max((var.rootfs_size_kib > 0 ? var.rootfs_size_kib : var.rootfs_kib) - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "root-A"
    filesystem {
      type = "ext4"
    }
    contents {
      dir = var.rootfs
    }
  }

  # test_gpt_partition_name.wks:5: part --fstype=ext4 --label ext-space --size 1M --align 1024
  partition "ext-space" {
    size  = "1MiB"
    align = "1MiB"
    type  = "0fc63daf-8483-4772-8e79-3d69d8477de4"
    label = "ext-space"
    filesystem {
      type    = "ext4"
      label   = "ext-space"
      journal = false
    }
  }
}
