# One device tree, or a directory U-Boot picks one from: not both.
board "pine64" {
  arch       = "arm64"
  bootloader = "extlinux"
  boot {
    dtb    = "empty.img"
    fdtdir = "rootfs" # ERROR: Both dtb and fdtdir
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
