# The Raspberry Pi firmware boots arm kernels.
board "pc" {
  bootloader = "rpi" # ERROR: Unsupported bootloader
}

image "disk" {
  size = "64MiB"
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
