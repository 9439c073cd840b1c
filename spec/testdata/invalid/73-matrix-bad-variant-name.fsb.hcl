matrix "erase_block" {
  values = ["4 MiB", "8 MiB"] # ERROR: Invalid matrix values
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true

    filesystem {
      type = "f2fs"
      geometry { erase_block = matrix.erase_block }
    }
  }
}
