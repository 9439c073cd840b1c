image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }

  partition "data" {
    size = "512MiB" # ERROR: Partition does not fit
    filesystem { type = "ext4" }
  }
}
