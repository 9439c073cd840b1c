image "emmc" {
  table   = "mbr"
  size    = "3648MiB"
  disk_id = "1234abcd" # ERROR: Invalid disk id

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
