# The firmware reads partition 1 only.
board "rpi4" {
  arch       = "arm64"
  bootloader = "rpi"
  boot {
    partition = partition.boot # ERROR: Raspberry Pi boot files off the first partition
    kernel    = "empty.img"
  }
}

image "sdcard" {
  size  = "256MiB"
  table = "mbr"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "boot" {
    grow = true
    filesystem { type = "vfat" }
  }
}
