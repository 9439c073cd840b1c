# Raspberry Pi 3: the boot ROM reads only the MBR and boots from its first
# FAT partition. A hybrid MBR mirrors the boot partition (0x0c, FAT32
# LBA) beside the protective entry, and Linux reads the GPT.
board "rpi3" {
  arch       = "arm64"
  storage    = "mmcblk0"
  bootloader = "rpi"
}

image "sdcard" {
  size       = "512MiB"
  align      = "4MiB"
  hybrid_mbr = ["boot"]

  partition "boot" {
    size     = "128MiB"
    type     = "fat32"
    bootable = true
  }
  partition "rootfs" {
    grow = true
    type = "linux"
  }
}
