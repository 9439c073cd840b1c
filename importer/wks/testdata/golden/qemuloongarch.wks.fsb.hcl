# Imported from qemuloongarch.wks (wks) by fsbench import. Each block names the line it comes from.

variable "rootfs" {
  description = "the root filesystem directory wic copies: IMAGE_ROOTFS, or the --rootfs-dir given to wic"
}

variable "rootfs_kib" {
  description = "du -ks of that directory (du --apparent-size -ks for vfat), as wic measures it"
}

# qemuloongarch.wks:3: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # qemuloongarch.wks:3: part / --source rootfs --fstype=ext4 --label root --align 4096 --size 5G
  partition "root" {
    size  = floor((var.rootfs_kib + max(5242880 - var.rootfs_kib, 10240)) * 1.3) * 1024
    align = "4MiB"
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
