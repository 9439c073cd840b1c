image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }

  partition "data" {
    grow = true # ERROR: Growing partition not last
    filesystem { type = "ext4" }
  }

  partition "logs" {
    size = "64MiB"
    filesystem { type = "ext4" }
  }
}
