# config_txt lines are one line each and leave fsbench's settings alone.
board "rpi4" {
  arch       = "arm64"
  bootloader = "rpi"
  boot {
    partition  = partition.boot
    kernel     = "empty.img"
    config_txt = ["dtoverlay=vc4-kms-v3d", "gpu_mem=64\nkernel=other.img", "cmdline=mine.txt", "[pi4]"] # ERROR: Invalid config_txt line # ERROR: Invalid config_txt line # ERROR: Invalid config_txt line
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
