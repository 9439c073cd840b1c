board "rock-5b" {
  arch    = "aarch64" # ERROR: Unsupported architecture
  console = "ttyS2,1500000n8"
  storage = "mmcblk0"
}

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
