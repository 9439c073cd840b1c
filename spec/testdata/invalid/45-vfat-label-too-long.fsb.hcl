image "sd" {
  table = "mbr"
  size  = "2GiB"

  partition "boot" {
    size     = "64MiB"
    bootable = true

    filesystem {
      type  = "vfat"
      label = "BEAGLEBOOT01" # ERROR: vfat label too long
    }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
