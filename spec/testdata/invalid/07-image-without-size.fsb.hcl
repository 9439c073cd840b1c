image "emmc" { # ERROR: Missing required argument
  table = "gpt"
  align = "4MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
