image "sdcard" {
  size         = "1GiB"
  gpt_location = 1000 # ERROR: GPT entries not on a sector

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
