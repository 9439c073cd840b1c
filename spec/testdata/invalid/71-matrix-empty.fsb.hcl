matrix "fs" {
  values = [] # ERROR: Invalid matrix values
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = matrix.fs }
  }
}
