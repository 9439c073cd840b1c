# U-Boot's distro boot scans the bootable partitions, or partition 1 when
# none is: boot files on partition 2 of a disk without a bootable mark
# would never be read.
board "bbb" {
  arch       = "arm"
  bootloader = "uboot"
  boot {
    partition = partition.boot # ERROR: Boot files on a partition U-Boot does not scan
  }
}

image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
}
