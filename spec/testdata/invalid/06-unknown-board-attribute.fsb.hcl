board "rpi4" {
  arch    = "arm64"
  consol  = "ttyAMA0,115200n8" # ERROR: Unsupported argument
  storage = "mmcblk0"
}

image "sd" {
  size = "2GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
