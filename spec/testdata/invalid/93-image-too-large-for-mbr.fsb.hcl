image "ssd" {
  table = "mbr"
  size  = "4TiB" # ERROR: Image too large for MBR

  partition "rootfs" {
    size = "8GiB"
    root = true
    filesystem { type = "ext4" }
  }
}
