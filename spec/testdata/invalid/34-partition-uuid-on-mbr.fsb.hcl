image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    uuid = "6c3e2a5b-1f2d-4e3c-9b8a-7d6c5b4a3f21" # ERROR: Partition UUID on an MBR table
    filesystem { type = "ext4" }
  }
}
