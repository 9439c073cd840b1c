# The boot block names a partition of the image the board boots.
board "bbb" {
  arch       = "arm"
  bootloader = "extlinux"
  boot {
    partition = partition.bot # ERROR: Unknown partition
  }
}

image "disk" {
  size = "256MiB"
  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
