image "emmc" {
  size  = "3648MiB"
  align = "4MiB"

  partition "boot" {
    offset = "4MiB"
    size   = "64MiB"
    filesystem { type = "vfat" }
  }

  partition "rootfs" {
    offset = "69MiB" # ERROR: Misaligned partition
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
