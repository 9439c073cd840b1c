image "emmc" {
  table   = "gpt"
  size    = "3648MiB"
  disk_id = "9c3b4c5e-8c1f-4a6e-9d0b-2f6f3b0c9a1" # ERROR: Invalid disk id

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
