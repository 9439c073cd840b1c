# The device tree's file name goes into extlinux.conf as one word.
board "b" {
  arch       = "arm64"
  bootloader = "extlinux"
  boot {
    kernel = "empty.img"
    dtb    = "overlay/my board.dtb" # ERROR: Invalid boot file
  }
}

image "disk" {
  size = "64MiB"
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
