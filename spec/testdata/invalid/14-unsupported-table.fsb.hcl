image "emmc" {
  table = "gtp" # ERROR: Unsupported partition table
  size  = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
