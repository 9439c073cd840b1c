image "emmc" {
  table = "gpt"
  size  = "3648MiB"
  algin = "4MiB" # ERROR: Unsupported argument

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
