# An initramfs of one's own goes with the kernel it was made for.
board "bbb" {
  arch       = "arm"
  bootloader = "extlinux"
  boot {
    initramfs = "empty.img" # ERROR: Initramfs without a kernel
  }
}

image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
