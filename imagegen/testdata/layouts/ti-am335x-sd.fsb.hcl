# TI AM335x (BeagleBone Black): the boot ROM reads MLO from the active FAT
# partition of the MBR. The extended partition takes slot 2, and a
# primary partition for factory data follows it at the end of the card,
# as genimage's forced-primary layouts do.
board "beaglebone-black" {
  arch    = "arm"
  storage = "mmcblk0"
}

image "sdcard" {
  table         = "mbr"
  size          = "512MiB"
  extended_slot = 2

  partition "boot" {
    size     = "64MiB"
    type     = "fat32"
    bootable = true
  }
  partition "rootfs" {
    size    = "256MiB"
    type    = "linux"
    logical = true
  }
  partition "data" {
    size    = "64MiB"
    type    = "linux"
    logical = true
  }
  partition "factory" {
    size = "16MiB"
    type = "linux"
  }
}
