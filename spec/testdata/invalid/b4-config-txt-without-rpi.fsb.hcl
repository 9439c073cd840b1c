# config_txt is for the Raspberry Pi firmware alone.
board "qemu-arm64" {
  arch       = "arm64"
  bootloader = "extlinux"
  boot {
    partition  = partition.boot
    config_txt = ["gpu_mem=64"] # ERROR: config_txt without the Raspberry Pi firmware
  }
}

image "disk" {
  size = "256MiB"
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
