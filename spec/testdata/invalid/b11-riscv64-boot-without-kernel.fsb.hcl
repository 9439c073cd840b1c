# Debian 12 has no riscv64 kernel to put into the image.
board "b" {
  arch       = "riscv64"
  bootloader = "extlinux"
  boot {} # ERROR: Boot files without a kernel
}

image "disk" {
  size = "64MiB"
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
