# U-Boot reads FAT and ext2/3/4, not squashfs.
board "qemu-arm64" {
  arch       = "arm64"
  bootloader = "extlinux"
  boot {} # ERROR: Boot files on a filesystem U-Boot cannot read
}

image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "squashfs" }
    contents { dir = "rootfs" }
  }
}
