image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "rootfs" { # ERROR: Duplicate partition name
    size = "512MiB"
    filesystem { type = "ext4" }
  }
}
