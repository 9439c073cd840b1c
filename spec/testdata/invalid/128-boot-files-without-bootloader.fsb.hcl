# A boot block is for a bootloader that reads boot files from the image.
board "qemu-arm64" {
  arch = "arm64"
  boot {} # ERROR: Boot files without a bootloader that reads them
}

image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
