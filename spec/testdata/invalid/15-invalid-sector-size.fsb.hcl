image "nvme" {
  size        = "8GiB"
  sector_size = 1024 # ERROR: Invalid sector size

  partition "rootfs" {
    size = "1GiB"
    root = true
    filesystem { type = "ext4" }
  }
}
