image "emmc" {
  size = "3648MiB"

  partition "boot" {
    offset = "1MiB"
    size   = "64MiB"
    filesystem { type = "vfat" }
  }

  partition "rootfs" {
    offset = "32MiB" # ERROR: Overlapping partitions
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
