# The firmware boots the board's own kernel: the boot block must name it.
board "rpi4" {
  arch       = "arm64"
  bootloader = "rpi"
  boot { # ERROR: Raspberry Pi boot files without a kernel
    partition = partition.boot
  }
}

image "sdcard" {
  size  = "256MiB"
  table = "mbr"
  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
