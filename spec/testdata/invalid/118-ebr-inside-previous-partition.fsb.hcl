# A logical partition's EBR takes the sector before it, here the last
# sector of boot.
image "sdcard" {
  table = "mbr"
  size  = "1GiB"
  align = "512B"

  partition "boot" {
    offset = "1MiB"
    size   = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    offset  = "65MiB" # ERROR: Overlapping partitions
    size    = "512MiB"
    root    = true
    logical = true
    filesystem { type = "ext4" }
  }
}
