image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }

  partition "data" {
    size = "2GiB"
    grow = true # ERROR: Conflicting partition size
    filesystem { type = "ext4" }
  }
}
