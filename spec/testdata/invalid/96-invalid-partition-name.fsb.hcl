image "emmc" {
  size = "3648MiB"

  partition "root fs" { # ERROR: Invalid partition name
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
