image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "256MiB" # ERROR: xfs partition too small
    root = true
    filesystem { type = "xfs" }
  }
}
