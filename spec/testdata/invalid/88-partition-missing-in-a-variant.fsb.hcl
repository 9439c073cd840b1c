matrix "layout" {
  values = {
    single = { bench = false }
    split  = { bench = true }
  }
}

image "disk" {
  size = "2GiB"

  partition "rootfs" {
    size = "1GiB"
    root = true
    filesystem { type = "ext4" }
  }

  dynamic "partition" {
    for_each = matrix.layout.bench ? ["bench"] : []
    labels   = [partition.value]
    content {
      grow = true
      filesystem { type = "f2fs" }
    }
  }
}

test "mount_time" "bench" {
  on = partition.bench # ERROR: Unknown partition
}
