image "emmc" {
  size = "3648MiB"

  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }

  partition "rootfs" {
    size = true # ERROR: Invalid partition size
    root = true
    filesystem { type = "ext4" }
  }
}
