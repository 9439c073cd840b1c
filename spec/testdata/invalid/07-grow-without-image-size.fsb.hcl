# Without a size the image is as large as its partitions: none can grow.
image "emmc" {
  table = "gpt"
  align = "4MiB"

  partition "rootfs" {
    grow = true # ERROR: Growing partition in an image without a size
    root = true
    filesystem { type = "ext4" }
  }
}
