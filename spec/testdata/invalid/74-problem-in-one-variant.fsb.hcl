# 256MiB is enough for ext4 and f2fs, not for xfs.
matrix "fs" {
  values = ["ext4", "f2fs", "xfs"]
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "256MiB" # ERROR: xfs partition too small
    root = true
    filesystem { type = matrix.fs }
  }
  partition "bench" {
    grow = true
    filesystem { type = matrix.fs }
  }
}
